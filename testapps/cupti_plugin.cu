// cupti_plugin: libcupti-plugin.so, a CUPTI profiler in a library of its
// own (testapps/cupti_session.h), for measure_handover_plugin.
#define SC_CUPTI_PLUGIN_BUILD
#include "cupti_session.h"
