"""gpt2_step: a Hugging Face-style GPT-2 training step, no downloads.

A 4-layer GPT-2 (n_embd 256, 4 heads, vocabulary 8192) built from a
GPT2Config, trained with AdamW on random token batches made on the GPU;
the loss is summed with .item() every step and printed every tenth, as a
training script's progress line would.  --metrics-on-gpu sums it on the
GPU instead (float64, in the same order: the same loss_sum) and reads it
once at the end (SC403's fix, bench/price_check.py's gpt2_item pair).

    python3 gpt2_step.py [--steps N] [--warmup N] [--batch-size N] [--seq-len N] [--metrics-on-gpu]

stdout: loss_sum=... loss_hex=... (deterministic run to run);
stderr: tokens_per_s=... over the steps after the first --warmup (default
3), timed_window_ns=START,END of those steps (CLOCK_MONOTONIC) and, under
streamcheck, shim_self_ns_window=N: the shim's own estimate of its time
inside them (bench/train_bench.py reads all three).  Exits 77 without
torch, transformers or a GPU.
"""
import argparse
import ctypes
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
except ImportError as e:
    print(f"gpt2_step: {e}; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("gpt2_step: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--warmup", type=int, default=3, help="steps before the timed ones (in --steps)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--metrics-on-gpu", action="store_true",
                   help="sum the loss on the GPU, read once at the end (no .item() each step)")
    args = p.parse_args()
    if not 0 <= args.warmup < args.steps:
        p.error("--warmup must be at least 0 and less than --steps")

    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    config = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=8192,
                        n_positions=args.seq_len, attn_implementation="eager")
    model = GPT2LMHeadModel(config).cuda()
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    gen = torch.Generator(device="cuda").manual_seed(1)

    loss_sum = 0.0
    loss_acc = torch.zeros((), dtype=torch.float64, device="cuda") if args.metrics_on_gpu else None
    self_ns = getattr(ctypes.CDLL(None), "streamcheck_self_ns", None)   # under streamcheck only
    if self_ns:
        self_ns.restype = ctypes.c_uint64
    t0 = s0 = 0
    for step in range(args.steps):
        if step == args.warmup:
            torch.cuda.synchronize()
            t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            s0 = self_ns() if self_ns else 0
        input_ids = torch.randint(0, config.vocab_size, (args.batch_size, args.seq_len),
                                  device="cuda", generator=gen)
        outputs = model(input_ids=input_ids, labels=input_ids)
        loss = outputs.loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        if loss_acc is None:
            loss_sum += loss.item()  # corpus: SC403
        else:
            loss_acc += loss.detach().double()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", file=sys.stderr)
    if loss_acc is not None:
        loss_sum = loss_acc.item()
    torch.cuda.synchronize()
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s1 = self_ns() if self_ns else 0
    timed = args.steps - args.warmup
    print(f"loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} steps={args.steps}")
    print(f"tokens_per_s={timed * args.batch_size * args.seq_len * 1e9 / (t1 - t0):.1f}", file=sys.stderr)
    print(f"timed_window_ns={t0},{t1}", file=sys.stderr)
    if self_ns:
        print(f"shim_self_ns_window={s1 - s0}", file=sys.stderr)


if __name__ == "__main__":
    main()
