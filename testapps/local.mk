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
	alloc_loop alloc_loop_fixed device_sync device_sync_fixed redundant_sync redundant_sync_fixed pinned_roundtrip \
	sync_found_done \
	cache_config cache_config_fixed queue_limit queue_limit_fixed queue_depth async_engines async_engines_fixed \
	multithread_default_stream redirect_mixed handoff turn_taking graph_capture fork_child stress_mixed framework_step named_thread \
	measure_overlap measure_barrier measure_window multigpu_legacy multigpu_legacy_fixed multigpu_peer multigpu_redirect multigpu_rank \
	host_sync_loop pageable_loop nvtx_ranges copy_pipeline
SC_APPS_CUBLAS = cublas_default_stream cublas_default_stream_fixed
# Linked with CUPTI: a program with a profiler of its own.
SC_APPS_CUPTI = measure_handover
# Linked with cuBLAS and libnccl-sim.so (a stand-in for NCCL, nccl_sim.cu).
SC_APPS_NCCL = ddp_step
# Variants built from another app's source.
SC_APPS_VARIANTS = default_stream_static multithread_default_stream_pt measure_handover_plugin

SC_APPS = $(SC_APPS_SHARED) $(SC_APPS_CUBLAS) $(SC_APPS_CUPTI) $(SC_APPS_NCCL) $(SC_APPS_VARIANTS)
SC_APP_BINS = $(addprefix testapps/,$(SC_APPS)) testapps/libnccl-sim.so testapps/libcupti-plugin.so
SC_APP_EXPECTS = $(addprefix testapps/,$(addsuffix .expect,$(SC_APPS_SHARED) $(SC_APPS_CUBLAS) $(SC_APPS_CUPTI) \
	$(SC_APPS_NCCL)))
SC_APP_DEPS = $(srcdir)/testapps/common.h $(srcdir)/kernels/sc_kernels.cuh

testappsdir = $(pkglibexecdir)/testapps
testapps_SCRIPTS = $(SC_APP_BINS)
testapps_DATA = $(SC_APP_EXPECTS) testapps/selftest.list
all_local_targets += $(SC_APP_BINS) $(SC_APP_EXPECTS)
CLEANFILES += $(SC_APP_BINS) $(SC_APP_EXPECTS)
EXTRA_DIST += testapps/common.h testapps/expect.awk testapps/selftest.list testapps/nccl_sim.cu \
	testapps/cupti_session.h testapps/cupti_plugin.cu \
	$(addprefix testapps/,$(addsuffix .cu,$(SC_APPS_SHARED) $(SC_APPS_CUBLAS) $(SC_APPS_CUPTI) $(SC_APPS_NCCL)))

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
# CUPTI is found where the toolkit keeps it, here or on a GPU host; on the
# simulator LD_LIBRARY_PATH puts its libcupti first (RUNPATH comes after).
SC_CUPTI_RPATH = -Xlinker -rpath=$(CUDA_LIBDIR):$(CUDA_HOME)/targets/x86_64-linux/lib:$(CUDA_HOME)/extras/CUPTI/lib64
$(addprefix testapps/,$(SC_APPS_CUPTI)): testapps/%: $(srcdir)/testapps/%.cu $(srcdir)/testapps/cupti_session.h $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $< -L$(CUDA_LIBDIR) -lcupti $(SC_CUPTI_RPATH)
# The same profiler in a library the app loads with RTLD_LOCAL (as Python
# loads PyTorch's): libcupti is then outside the global scope.
testapps/libcupti-plugin.so: $(srcdir)/testapps/cupti_plugin.cu $(srcdir)/testapps/cupti_session.h
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -shared -Xcompiler -fPIC,-fvisibility=hidden -o $@ $< \
	  -L$(CUDA_LIBDIR) -lcupti $(SC_CUPTI_RPATH)
testapps/measure_handover_plugin: $(srcdir)/testapps/measure_handover.cu testapps/libcupti-plugin.so $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -DSC_CUPTI_PLUGIN -cudart shared -o $@ $<
# NCCL's stand-in: its own symbols hidden (the kernels' host stubs are the
# app's too), the API exported; the app finds it next to itself.
testapps/libnccl-sim.so: $(srcdir)/testapps/nccl_sim.cu $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -shared -Xcompiler -fPIC,-fvisibility=hidden -o $@ $<
testapps/ddp_step: $(srcdir)/testapps/ddp_step.cu testapps/libnccl-sim.so $(SC_APP_DEPS)
	@$(MKDIR_P) testapps
	$(NVCCAPP_V)$(SC_NVCC_APP) -cudart shared -o $@ $< -Ltestapps -lnccl-sim -lcublas -Xlinker -rpath='$$ORIGIN'
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

# Hand-written expectations of an app run with other arguments
# (selftest.list's expect=), copied beside the generated ones.
SC_APP_EXPECTS_HAND = testapps/host_sync_loop-cpu.expect
$(SC_APP_EXPECTS_HAND): testapps/%.expect: $(srcdir)/testapps/%.expect.in
	@$(MKDIR_P) testapps
	$(AM_V_GEN)cp $< $@
testapps_DATA += $(SC_APP_EXPECTS_HAND)
all_local_targets += $(SC_APP_EXPECTS_HAND)
CLEANFILES += $(SC_APP_EXPECTS_HAND)
EXTRA_DIST += $(addsuffix .in,$(SC_APP_EXPECTS_HAND))
