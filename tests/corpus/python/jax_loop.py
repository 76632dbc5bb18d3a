"""jax_loop: a jit-compiled training loop of a small MLP in JAX.

Parameters initialised with jax.random, a jax.jit-compiled SGD update built
on jax.grad, batches made in NumPy and moved with jax.device_put, and
block_until_ready before the clock stops.

    python3 jax_loop.py [--steps N] [--batch-size N]

stdout: loss_sum=... (float32 losses summed in float64); stderr: steps_per_s=...
Exits 77 without JAX or a GPU.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_gpu_deterministic_ops=true")
try:
    import numpy as np
    import jax
    import jax.numpy as jnp
except ImportError:
    print("jax_loop: jax is not installed; skipping", file=sys.stderr)
    sys.exit(77)
try:
    gpus = jax.devices("gpu")
except RuntimeError:
    gpus = []
if not gpus:
    print("jax_loop: no GPU backend; skipping", file=sys.stderr)
    sys.exit(77)

SIZES = (784, 512, 512, 10)


def init_params(key):
    params = []
    for m, n in zip(SIZES[:-1], SIZES[1:]):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), jnp.zeros((n,))))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    logits = predict(params, x)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), axis=-1))


@jax.jit
def update(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads)
    return params, loss


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=256)
    args = p.parse_args()

    params = init_params(jax.random.PRNGKey(0))
    rng = np.random.default_rng(0)
    data_x = rng.random((8, args.batch_size, 784), dtype=np.float32)
    data_y = rng.integers(0, 10, (8, args.batch_size))
    losses = []
    t0 = None
    for step in range(args.steps):
        if step == 10:
            jax.block_until_ready(params)
            t0 = time.perf_counter()
        x = jax.device_put(data_x[step % 8], gpus[0])
        y = jax.device_put(data_y[step % 8], gpus[0])
        params, loss = update(params, x, y)
        losses.append(loss)
    jax.block_until_ready(params)
    dt = time.perf_counter() - t0
    loss_sum = sum(float(v) for v in losses)
    print(f"loss_sum={loss_sum:.6f} loss_hex={loss_sum.hex()} steps={args.steps}")
    print(f"steps_per_s={(args.steps - 10) / dt:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
