#!/usr/bin/env python3
"""step_timer.py: times the steps of a training script that reads its loss with .item() every step.

tests/corpus/python/ddp_train.py prints no timing of its own (the corpus
keeps it as users write it).  Its loop calls loss.item() once a step, which
returns when the step's GPU work is done; this wrapper runs the script in
its own process (as torchrun starts it, one process a rank), notes when each
.item() called from the script's own lines returns, and prints on stderr,
after the script ran, for its rank R (the RANK variable, 0 without it):

    rankR.step_ms=...            mean time a step over the steps after --warmup
    rankR.timed_window_ns=A,B    those steps on CLOCK_MONOTONIC
    rankR.step_end_ns=T1,T2,...  when each of them ended
    rankR.next_ms=...            the median time the main thread spent in a
    rankR.next_mean_ms=...       DataLoader iterator's __next__, and the mean
                                 (the batches after the first --warmup):
                                 receiving each batch from the workers, or,
                                 with pin_memory=True, taking it from the
                                 pinning thread

    torchrun --standalone --nproc_per_node 2 bench/step_timer.py [--warmup N] SCRIPT [ARGS...]

bench/price_check.py uses it for the gain of the DDP pair; the runs under
streamcheck run the script itself.  The script's exit status is kept (77:
skipped); without torch it exits 77 before the script runs.
"""
import os
import runpy
import sys
import time


def main():
    argv = sys.argv[1:]
    warmup = 10
    if len(argv) >= 2 and argv[0] == "--warmup":
        warmup, argv = int(argv[1]), argv[2:]
    if not argv:
        print("usage: step_timer.py [--warmup N] SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("step_timer: torch is not installed; skipping", file=sys.stderr)
        return 77
    script = os.path.abspath(argv[0])
    ends = []
    item = torch.Tensor.item

    def timed_item(self):
        v = item(self)
        if sys._getframe(1).f_code.co_filename == script:
            ends.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC))
        return v

    torch.Tensor.item = timed_item
    from torch.utils.data import dataloader
    nxt, waits = dataloader._BaseDataLoaderIter.__next__, []

    def timed_next(self):
        t0 = time.perf_counter_ns()
        batch = nxt(self)
        waits.append(time.perf_counter_ns() - t0)
        return batch

    dataloader._BaseDataLoaderIter.__next__ = timed_next
    sys.argv = [script] + argv[1:]
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        torch.Tensor.item = item
        dataloader._BaseDataLoaderIter.__next__ = nxt
    timed = ends[warmup - 1:] if warmup > 0 else ends
    if status == 0 and len(timed) >= 2:
        r = os.environ.get("RANK", "0")
        print("rank%s.step_ms=%.4f" % (r, (timed[-1] - timed[0]) / 1e6 / (len(timed) - 1)), file=sys.stderr)
        print("rank%s.timed_window_ns=%d,%d" % (r, timed[0], timed[-1]), file=sys.stderr)
        print("rank%s.step_end_ns=%s" % (r, ",".join(str(t) for t in timed[1:])), file=sys.stderr)
        w = sorted(waits[warmup:])
        if w:
            print("rank%s.next_ms=%.4f" % (r, w[len(w) // 2] / 1e6), file=sys.stderr)
            print("rank%s.next_mean_ms=%.4f" % (r, sum(w) / len(w) / 1e6), file=sys.stderr)
    elif status == 0:
        print("step_timer: %d steps read their loss, too few after --warmup %d" % (len(ends), warmup),
              file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
