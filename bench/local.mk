# bench/local.mk: benchmarks.  Not tests: `make bench` runs them, prints
# what they measure, and never fails on a number.
#
#   bench/shim_cost          the shim's own cost per call, against a fake
#                            driver (no GPU needed)
#   bench/launch_overhead    launches per second, natively and under the shim
#   bench/torch_step.py      a launch-bound PyTorch training step, likewise
#   bench/framework_loop     a framework's loop (PyTorch-like streams and
#                            threads), likewise
#   bench/graphs             CUDA graphs' API from the host (capture of N
#                            kernels, graph launch), likewise
#   bench/train_bench.py     a ResNet-18 DataLoader training loop
#                            (tests/corpus/python/train_resnet.py), likewise,
#                            7 alternating pairs, median ratio and spread,
#                            beside the report's own time estimate (and
#                            streamcheck --measure when the launcher has it)
#   bench/redirect.sh        redirect vs the per-thread recompile (make bench-redirect)
#   bench/redirect-torch.sh  a PyTorch training loop (bench/torch_train.py) natively and
#                            under every redirect method: same loss bits, images/s
#   bench/queue_mapping      how streams land on hardware queues
#   bench/price_check.py     does the price of a finding match what its fix
#                            gains?  Hazard apps and their fixes, alternated,
#                            beside the estimates of detect and measured mode
#                            (make bench-price: the C pairs on the simulator;
#                            tools/gpu-verify.sh price: every pair on a GPU).
#                            Unlike the others it judges: it exits 1 when a
#                            price misses its bounds (est/gain).
#   bench/exit_time.py       what the shim adds to a program's exit: natively,
#                            symbolizing in the process, leaving it to the
#                            launcher, and the launcher; alternating rounds
# The GPU ones run side by side in one run (bench/side-by-side.sh: each
# figure's medians, and the ratio of every native/streamcheck pair with its
# median, min and max) and only where `nvidia-smi -L` finds a GPU;
# shim_cost shows each figure's best, median and worst run.
# docs/PERFORMANCE.md keeps the results, with their commands.

noinst_PROGRAMS += bench/shim_cost
bench_shim_cost_SOURCES = bench/shim_cost.c tests/unit/fake_driver.c tests/unit/fake_driver.h
bench_shim_cost_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
bench_shim_cost_LDFLAGS = $(SC_SHIM_LINK)
bench_shim_cost_LDADD = $(SC_SHIM_LIBS) \
	$(LIBUNWIND_LIBS) -ldl -lpthread

# The pricing model run again on a dump a program left
# (STREAMCHECK_TEST_PRICE_DUMP): model changes tried on runs recorded on a
# GPU, without one.  tests/price-replay.sh checks it reproduces the dump.
noinst_PROGRAMS += bench/price_replay
bench_price_replay_SOURCES = bench/price_replay.c src/shim/pricing.c src/shim/pricing_attribute.c \
    src/shim/pricing_loop.c src/shim/pricing_copies.c src/shim/pricing_events.c src/shim/pricing_savings.c \
    src/shim/replay.c
bench_price_replay_CPPFLAGS = $(AM_CPPFLAGS) $(SC_SHIM_CPPFLAGS)
bench_price_replay_LDADD = -lm

SC_BENCH_CU = bench/launch_overhead bench/queue_mapping bench/framework_loop bench/graphs
all_local_targets += $(SC_BENCH_CU)
CLEANFILES += $(SC_BENCH_CU)
EXTRA_DIST += bench/launch_overhead.cu bench/queue_mapping.cu bench/framework_loop.cu bench/graphs.cu bench/torch_step.py \
	bench/side-by-side.sh bench/redirect.sh bench/train_bench.py bench/torch_train.py bench/redirect-torch.sh \
	bench/price_check.py bench/step_timer.py tests/corpus/python/item_loop.py \
	tests/corpus/python/readback_loop.py
EXTRA_DIST += bench/exit_time.py bench/price_offline.py bench/price_weights.py bench/pyframes_cost.py bench/together.py \
	bench/data/h200-price-dumps.tar.xz \
	bench/data/h200-price-dumps-2.tar.xz bench/data/h200-price-dumps-3.tar.xz \
	bench/data/h200-price-dumps-4.tar.xz bench/data/h200-price-dumps-5.tar.xz bench/data/h200-price-dumps-6.tar.xz \
	bench/data/h200-price-dumps-7.tar.xz bench/data/h200-price-dumps-8.tar.xz \
	bench/data/h100-price-dumps-9.tar.xz bench/data/h200-price-dumps-10.tar.xz \
	bench/data/h100-price-dumps-11.tar.xz bench/data/seeds-h100-dumps-12.tar.xz \
	bench/data/h200-dumps-14.tar.xz bench/data/h200-dumps-15.tar.xz \
	bench/data/h200-dumps-16.tar.xz bench/data/h200-price-dumps-19.tar.xz
$(SC_BENCH_CU): bench/%: $(srcdir)/bench/%.cu $(srcdir)/kernels/sc_kernels.cuh
	@$(MKDIR_P) bench
	$(NVCCAPP_V)$(NVCC) $(NVCCFLAGS) -cudart shared -o $@ $<

SC_HAVE_GPU = nvidia-smi -L >/dev/null 2>&1
bench: bench/shim_cost$(EXEEXT) $(SC_BENCH_CU) src/streamcheck$(EXEEXT) src/libstreamcheck.la \
		tests/pyframes/libpyprobe.la
	@echo "== the shim's own cost per call (fake driver)"
	@bench/shim_cost$(EXEEXT)
	@echo "== reading a hazard's Python frames under a package's"
	@python3 $(srcdir)/bench/pyframes_cost.py tests/pyframes/.libs/libpyprobe.so || true
	@if $(SC_HAVE_GPU); then \
	  . tests/env.sh; export STREAMCHECK="$$SC_CLI"; \
	  echo "== launch overhead, native vs streamcheck"; \
	  for m in stream legacy; do \
	    $(SHELL) $(srcdir)/bench/side-by-side.sh "launch_overhead $$m" launches_per_sec 11 -- bench/launch_overhead $$m 500000; \
	  done; \
	  echo "== PyTorch MLP step, native vs streamcheck"; \
	  $(SHELL) $(srcdir)/bench/side-by-side.sh "torch MLP step" steps_per_sec 7 -- python3 $(srcdir)/bench/torch_step.py 2000 || true; \
	  echo "== a framework's loop (legacy-stream launches beside 128 pool streams, two threads, forks)"; \
	  $(SHELL) $(srcdir)/bench/side-by-side.sh "framework_loop" steps_per_s 7 -- bench/framework_loop 2000 50 20 || true; \
	  echo "== CUDA graphs from the host (capture of 20 kernels, graph launch), native vs streamcheck"; \
	  $(SHELL) $(srcdir)/bench/side-by-side.sh "graphs" capture_us,launch_us,relaunch_us,instantiate_us 7 \
	    -- bench/graphs 20 200 || true; \
	  echo "== ResNet-18 training loop (DataLoader), native vs streamcheck"; \
	  python3 $(srcdir)/bench/train_bench.py --pairs 7; \
	  case $$? in 0|77) ;; *) echo "train_bench.py failed";; esac; \
	  echo "== GPT-2 training step (transformers), native vs detect mode"; \
	  python3 $(srcdir)/bench/train_bench.py --pairs 7 --no-measure \
	    --prog $(srcdir)/tests/corpus/python/gpt2_step.py --prog-args "--steps 110 --warmup 10"; \
	  case $$? in 0|77) ;; *) echo "train_bench.py (GPT-2) failed";; esac; \
	  if [ "$$(nvidia-smi -L | grep -c '^GPU')" -ge 2 ]; then \
	    echo "== DDP training loop on 2 GPUs (torchrun), native vs detect mode"; \
	    NCCL_NVLS_ENABLE=0 python3 $(srcdir)/bench/train_bench.py --pairs 7 --no-measure \
	      --prog $(srcdir)/tests/corpus/python/ddp_train.py --launch "torchrun --standalone --nproc_per_node 2" \
	      --prog-args "--pin-memory 1 --steps 220 --warmup 20"; \
	    case $$? in 0|77) ;; *) echo "train_bench.py (DDP) failed";; esac; \
	  fi; \
	else echo "== no GPU here: the GPU benchmarks are skipped"; fi

bench-redirect: $(SC_APP_BINS) src/streamcheck$(EXEEXT) src/libstreamcheck.la
	@if $(SC_HAVE_GPU); then \
	  . tests/env.sh; STREAMCHECK="$$SC_CLI" TESTAPPS="$$SC_APPS" $(SHELL) $(srcdir)/bench/redirect.sh 5 5 10 4 8 16; \
	else echo "bench-redirect: needs a GPU (nvidia-smi -L finds none)"; fi
# The JSON of every run goes to $(PRICE_OUT) (default: a new temporary
# folder); PRICE_ARGS adds options (--only host_sync_loop-gpu, --pairs 7).
bench-price: $(SC_APP_BINS) $(SC_APP_EXPECTS) src/streamcheck$(EXEEXT) src/libstreamcheck.la \
		src/sim/libcuda.la src/sim/libcudart.la
	@test -n "$(PYTHON3)" || { echo "bench-price: needs python3 (configure found none)"; exit 1; }
	@. tests/env.sh; out=$${PRICE_OUT:-$$(mktemp -d)/price-check.json}; \
	  $(PYTHON3) $(srcdir)/bench/price_check.py --sim --streamcheck "$$SC_CLI" --apps "$$SC_APPS" \
	    --simdir "$$SC_SIMDIR" --out "$$out" $(PRICE_ARGS)
.PHONY: bench bench-redirect bench-price
