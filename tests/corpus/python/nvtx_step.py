"""nvtx_step: a training loop with each step in an NVTX range, as Nsight users mark theirs.

A small MLP learns synthetic data with SGD.  Each step is inside
torch.cuda.nvtx.range("step"); its batch, made on the CPU in pageable
memory, goes to the GPU with non_blocking=True through a library helper
(torch.utils._pytree.tree_map, as Lightning's batch_to does), so the copy
waits for the stream and is not asynchronous (SC203, the "# corpus: SC203"
line): the finding names the range "step", and its call site is this
file's line, via the helper's frame in torch.  Before the loop a validation
batch is copied the same way outside any range ("# corpus: SC203-outside"):
streamcheck --range step leaves it out and takes the shares of the time
inside the steps.  --emit-nvtx runs the loop under
torch.autograd.profiler.emit_nvtx(), which adds a range per operator
(findings then name the innermost operator's range; --range step keeps
them all).

    python3 nvtx_step.py [--steps N] [--batch-size N] [--emit-nvtx]

stdout: loss_hex=... steps=N (the same bits with or without streamcheck).
Exits 77 without torch or a GPU.  On a GPU host:

    streamcheck --format text,json -- python3 nvtx_step.py
    streamcheck --range step --format text,json -- python3 nvtx_step.py

(tools/gpu-verify.sh nvtx runs these and prints each finding's range.)
"""
import argparse
import functools
import sys

try:
    import torch
    from torch.utils._pytree import tree_map
except ImportError:
    print("nvtx_step: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("nvtx_step: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

FEATURES, CLASSES = 1024, 10


def make_batch(g, n):
    """A batch on the CPU, in pageable memory (no pin_memory)."""
    return {"x": torch.randn(n, FEATURES, generator=g), "y": torch.randint(0, CLASSES, (n,), generator=g)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=4096)
    p.add_argument("--emit-nvtx", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, CLASSES)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    to_dev = functools.partial(torch.Tensor.to, device=dev, non_blocking=True)

    val = tree_map(to_dev, make_batch(g, args.batch_size))  # corpus: SC203-outside
    loss_sum = torch.zeros((), device=dev, dtype=torch.float64)
    batches = [make_batch(g, args.batch_size) for _ in range(4)]
    ctx = torch.autograd.profiler.emit_nvtx() if args.emit_nvtx else None
    if ctx:
        ctx.__enter__()
    for i in range(args.steps):
        with torch.cuda.nvtx.range("step"):
            b = tree_map(to_dev, batches[i % len(batches)])  # corpus: SC203
            loss = torch.nn.functional.cross_entropy(model(b["x"]), b["y"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += loss.detach().double()
    if ctx:
        ctx.__exit__(None, None, None)
    with torch.no_grad():
        loss_sum += torch.nn.functional.cross_entropy(model(val["x"]), val["y"]).double()
    print(f"loss_hex={loss_sum.item().hex()} steps={args.steps}")


if __name__ == "__main__":
    main()
