# tests/corpus/local.mk: the corpus (tools/corpus/README.md).  Here: the
# sample-style apps of tests/corpus/apps, built -cudart shared and checked
# on the simulator by tests/corpus-apps.sh (expectations: "// expect:"
# comments, testapps/expect.awk).  The Python programs, expectations and
# the GPU runner only travel with the tree.
SC_CORPUS_APPS = tests/corpus/apps/vector_add tests/corpus/apps/async_api
check_SCRIPTS += $(SC_CORPUS_APPS) $(addsuffix .expect,$(SC_CORPUS_APPS))
CLEANFILES += $(SC_CORPUS_APPS) $(addsuffix .expect,$(SC_CORPUS_APPS))
dist_check_SCRIPTS += tests/corpus-apps.sh
TESTS += tests/corpus-apps.sh
EXTRA_DIST += $(addsuffix .cu,$(SC_CORPUS_APPS)) tests/corpus/expect.txt \
	tests/corpus/python/train_resnet.py tests/corpus/python/gpt2_step.py \
	tests/corpus/python/compile_step.py tests/corpus/python/cupy_streams.py \
	tests/corpus/python/jax_loop.py tests/corpus/python/ddp_train.py tests/corpus/python/profiler_step.py \
	tests/corpus/python/nvtx_step.py tests/corpus/python/lightning_train.py \
	tools/multigpu-check.sh \
	tools/corpus/README.md tools/corpus/samples.list tools/corpus/extract-samples.sh \
	tools/corpus/build-samples.sh tools/corpus/run.sh tools/corpus/summarize.py

$(SC_CORPUS_APPS): tests/corpus/apps/%: $(srcdir)/tests/corpus/apps/%.cu $(SC_APP_DEPS)
	@$(MKDIR_P) tests/corpus/apps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $<
$(addsuffix .expect,$(SC_CORPUS_APPS)): tests/corpus/apps/%.expect: $(srcdir)/tests/corpus/apps/%.cu $(srcdir)/testapps/expect.awk
	@$(MKDIR_P) tests/corpus/apps
	$(AM_V_GEN)$(AWK) -f $(srcdir)/testapps/expect.awk $< > $@
