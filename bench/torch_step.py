"""torch_step: steps per second of a small, launch-bound MLP training step.

Forward, backward and an SGD step of a 4-layer 256-wide MLP on a batch of
64: each step is dozens of small kernels, so the cost per launch dominates.
Run natively and under streamcheck by bench/torch-step.sh.
Prints "steps_per_sec=N".  Exits 77 without torch or a GPU.
"""
import sys
import time

try:
    import torch
except ImportError:
    sys.exit(77)
if not torch.cuda.is_available():
    sys.exit(77)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
loss_fn = torch.nn.CrossEntropyLoss()


def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()


for _ in range(200):
    step()
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(STEPS):
    step()
torch.cuda.synchronize()
print(f"steps_per_sec={STEPS / (time.perf_counter() - t0):.1f}")
