# testapps/local.mk: the hazard apps, their fixed twins and the redirect
# apps.  Each app is one .cu file; its expectations are comments in it,
# turned into APP.expect by expect.awk.  Built with nvcc (pattern rules: GNU
# make), installed for `streamcheck --selftest`.

# Built with -cudart shared so the simulator can run them too.
SC_APPS_SHARED = \
	default_stream default_stream_fixed blocking_stream blocking_stream_fixed \
	shared_default_stream shared_default_stream_fixed sync_memcpy sync_memcpy_fixed \
	sync_memset sync_memset_fixed pageable_copy pageable_copy_fixed d2d_copy d2d_copy_fixed \
	alloc_sync alloc_sync_fixed pinned_alloc_sync pinned_alloc_sync_fixed \
	alloc_loop alloc_loop_fixed device_sync device_sync_fixed redundant_sync redundant_sync_fixed \
	cache_config cache_config_fixed queue_limit queue_limit_fixed async_engines async_engines_fixed \
	multithread_default_stream redirect_mixed graph_capture fork_child stress_mixed framework_step named_thread \
	measure_overlap measure_barrier
SC_APPS_CUBLAS = cublas_default_stream cublas_default_stream_fixed
# Variants built from another app's source.
SC_APPS_VARIANTS = default_stream_static multithread_default_stream_pt

SC_APPS = $(SC_APPS_SHARED) $(SC_APPS_CUBLAS) $(SC_APPS_VARIANTS)
SC_APP_BINS = $(addprefix testapps/,$(SC_APPS))
SC_APP_EXPECTS = $(addprefix testapps/,$(addsuffix .expect,$(SC_APPS_SHARED) $(SC_APPS_CUBLAS)))
SC_APP_DEPS = $(srcdir)/testapps/common.h $(srcdir)/kernels/sc_kernels.cuh

testappsdir = $(pkglibexecdir)/testapps
testapps_SCRIPTS = $(SC_APP_BINS)
testapps_DATA = $(SC_APP_EXPECTS) testapps/selftest.list
all_local_targets += $(SC_APP_BINS) $(SC_APP_EXPECTS)
CLEANFILES += $(SC_APP_BINS) $(SC_APP_EXPECTS)
EXTRA_DIST += testapps/common.h testapps/expect.awk testapps/selftest.list \
	$(addprefix testapps/,$(addsuffix .cu,$(SC_APPS_SHARED) $(SC_APPS_CUBLAS)))

SC_NVCC_APP = $(NVCC) $(NVCCFLAGS) -I$(srcdir)/testapps
NVCCAPP_V = $(NVCCAPP_V_@AM_V@)
NVCCAPP_V_ = $(NVCCAPP_V_@AM_DEFAULT_V@)
NVCCAPP_V_0 = @echo "  NVCC    " $@;

$(addprefix testapps/,$(SC_APPS_SHARED)): testapps/%: $(srcdir)/testapps/%.cu $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $<
$(addprefix testapps/,$(SC_APPS_CUBLAS)): testapps/%: $(srcdir)/testapps/%.cu $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $< -lcublas
# nvcc's default: the CUDA runtime linked statically into the program.
testapps/default_stream_static: $(srcdir)/testapps/default_stream.cu $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart static -o $@ $<
# The recompile that redirect mode imitates.
testapps/multithread_default_stream_pt: $(srcdir)/testapps/multithread_default_stream.cu $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) --default-stream per-thread -cudart shared -o $@ $<

SUFFIXES += .expect
.cu.expect:
	@$(MKDIR_P) testapps
	$(AM_V_GEN)$(AWK) -f $(srcdir)/testapps/expect.awk $< > $@
