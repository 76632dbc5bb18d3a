"""profiler_step: a training step profiled with torch.profiler, as users do.

A small MLP trained with SGD for a few steps, the last few of them inside
torch.profiler.profile(activities=[CPU, CUDA]).  torch.profiler records
the GPU side through CUPTI, which has room for one subscriber on CUDA 13:
streamcheck's measured mode must not take the user's profile away.

    python3 profiler_step.py [--steps N] [--profiled N]

stdout: loss_hex=... cuda_kernel_events=N (kernels torch.profiler saw;
0 means it got no GPU records).  Exits 77 without torch or a GPU.
"""
import argparse
import sys

try:
    import torch
    from torch.profiler import ProfilerActivity, profile
except ImportError:
    print("profiler_step: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("profiler_step: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--profiled", type=int, default=5)
    args = p.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    loss_sum = 0.0

    def step():
        nonlocal loss_sum
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss_sum += loss.item()

    for _ in range(args.steps - args.profiled):
        step()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.profiled):
            step()
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"loss_hex={float(loss_sum).hex()} cuda_kernel_events={kernels}")


if __name__ == "__main__":
    main()
