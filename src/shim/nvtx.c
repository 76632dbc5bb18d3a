/* nvtx.c: libstreamcheck.so as an NVTX injection library, as Nsight's
 * tools are.  NVTX (nvToolsExt.h; nvtxDetail/nvtxInit.h says how) loads
 * the library NVTX_INJECTION64_PATH names at the first NVTX call of each
 * instance -- PyTorch's libtorch_cuda, the program itself, any library
 * built with the header-only NVTX 3 or linked with libnvToolsExt -- and
 * calls its InitializeInjectionNvtx2 with that instance's export table.
 * Through it (NVTX_ETID_CALLBACKS: GetModuleFunctionTable) we put our
 * functions in the instance's slots for the range calls, so that
 * nvtxRangePushA and the others reach ranges.c; the slots we leave alone
 * NVTX turns into no-ops.  The launcher sets the variable (src/cli).
 *
 * Domains: a domain's ranges go on the same per-thread stack as the
 * global domain's, so ranges of two domains are followed exactly when
 * they nest (NCCL's inside PyTorch's).
 *
 * The payload extension (nvToolsExtPayload.h) reaches a tool through
 * InitializeInjectionNvtxExtension, once per instance and module, with the
 * module's slots: we take its range calls (nvtxRangePushPayload and the
 * others; their payloads name nothing we read).  NCCL pushes a function's
 * range by name (nvtxDomainRangePushEx) and, once it has set a payload,
 * pops it with nvtxRangePopPayload: without this its ranges stayed open,
 * and every later call of the thread was "in" ncclCommInitRankConfig.
 */
#include "config.h"

#include <stddef.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include "nvtx.h"
#include "ranges.h"

/* ------------------------------------------------------------ names --- */
/* A wide name as UTF-8 (wchar_t is UTF-32 on Linux), cut at a bound. */
static unsigned wide_name(const wchar_t *w)
{
    char b[256];
    size_t n = 0;
    for (; w && *w && n + 4 < sizeof b; w++) {
        uint32_t c = (uint32_t)*w;
        if (c < 0x80) {
            b[n++] = (char)c;
        } else if (c < 0x800) {
            b[n++] = (char)(0xc0 | c >> 6);
            b[n++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            b[n++] = (char)(0xe0 | c >> 12);
            b[n++] = (char)(0x80 | (c >> 6 & 0x3f));
            b[n++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x110000) {
            b[n++] = (char)(0xf0 | c >> 18);
            b[n++] = (char)(0x80 | (c >> 12 & 0x3f));
            b[n++] = (char)(0x80 | (c >> 6 & 0x3f));
            b[n++] = (char)(0x80 | (c & 0x3f));
        }
    }
    b[n] = '\0';
    return sc_range_intern(b);
}

/* A registered string's handle is its name's id (register_a below). */
static unsigned handle_name(nvtxStringHandle_t h)
{
    return (unsigned)(uintptr_t)h;
}

/* The name an event's attributes carry, when their size covers it. */
static unsigned attr_name(const nvtxEventAttributes_t *a)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
        return SC_RANGE_NONE;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return sc_range_intern(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return wide_name(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: return handle_name(a->message.registered);
    default: return SC_RANGE_NONE;
    }
}

/* -------------------------------------------------------- callbacks --- */
/* Each names its range and hands it to ranges.c, whose functions keep the
   program's errno. */
static int push_a(const char *m) { return sc_range_push(sc_range_intern(m)); }
static int push_w(const wchar_t *m) { return sc_range_push(wide_name(m)); }
static int push_ex(const nvtxEventAttributes_t *a) { return sc_range_push(attr_name(a)); }
static int pop(void) { return sc_range_pop(); }
static nvtxRangeId_t start_a(const char *m) { return sc_range_start(sc_range_intern(m)); }
static nvtxRangeId_t start_w(const wchar_t *m) { return sc_range_start(wide_name(m)); }
static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a) { return sc_range_start(attr_name(a)); }
static void end(nvtxRangeId_t id) { sc_range_end(id); }

static int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return push_ex(a);
}

static int domain_pop(nvtxDomainHandle_t d)
{
    (void)d;
    return pop();
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return start_ex(a);
}

static void domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;
    end(id);
}

/* The payload extension's ranges: unnamed to us (a payload may carry a
   message, through a schema we do not read), so a push is named by its
   enclosing range, as an unnamed nvtxRangePushEx is. */
static int push_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *p, size_t n)
{
    (void)d, (void)p, (void)n;
    return sc_range_push(SC_RANGE_NONE);
}

static int pop_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *p, size_t n)
{
    (void)d, (void)p, (void)n;
    return sc_range_pop();
}

static nvtxRangeId_t start_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *p, size_t n)
{
    (void)d, (void)p, (void)n;
    return sc_range_start(SC_RANGE_NONE);
}

static void end_payload(nvtxDomainHandle_t d, nvtxRangeId_t id, const nvtxPayloadData_t *p, size_t n)
{
    (void)d, (void)p, (void)n;
    sc_range_end(id);
}

/* nvtx3::registered_string and the like: the handle is the name's id. */
static nvtxStringHandle_t register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)(uintptr_t)sc_range_intern(s);
}

static nvtxStringHandle_t register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
    (void)d;
    return (nvtxStringHandle_t)(uintptr_t)wide_name(s);
}

/* ------------------------------------------------------------ slots --- */
/* The slots we fill: module, callback id, and our function, checked
   against the slot's type (nvtxDetail/nvtxTypes.h) by the conditional. */
#define SLOT(MOD, NAME, FN) \
    {NVTX_CB_MODULE_##MOD, NVTX_CBID_##MOD##_##NAME, (NvtxFunctionPointer)(1 ? (FN) : (nvtx##NAME##_impl_fntype)0)}
static const struct slot {
    NvtxCallbackModule module;
    unsigned id;
    NvtxFunctionPointer fn;
} slots[] = {
    SLOT(CORE, RangePushA, push_a),
    SLOT(CORE, RangePushW, push_w),
    SLOT(CORE, RangePushEx, push_ex),
    SLOT(CORE, RangePop, pop),
    SLOT(CORE, RangeStartA, start_a),
    SLOT(CORE, RangeStartW, start_w),
    SLOT(CORE, RangeStartEx, start_ex),
    SLOT(CORE, RangeEnd, end),
    SLOT(CORE2, DomainRangePushEx, domain_push_ex),
    SLOT(CORE2, DomainRangePop, domain_pop),
    SLOT(CORE2, DomainRangeStartEx, domain_start_ex),
    SLOT(CORE2, DomainRangeEnd, domain_end),
    SLOT(CORE2, DomainRegisterStringA, register_a),
    SLOT(CORE2, DomainRegisterStringW, register_w),
};
#undef SLOT

int InitializeInjectionNvtx2(const void *(*getExportTable)(uint32_t exportTableId))
{
    if (!getExportTable || !sc_ranges_configure())
        return 0;
    const NvtxExportTableCallbacks *cb = getExportTable(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    int filled = 0;
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        NvtxFunctionTable table = NULL;
        unsigned size = 0;
        if (!cb->GetModuleFunctionTable(slots[i].module, &table, &size) || !table)
            continue;
        /* size: the module's callback ids, the unused 0 included */
        if (slots[i].id < size && table[slots[i].id]) {
            *table[slots[i].id] = slots[i].fn;
            filled++;
        }
    }
    /* NVTX asks tools to say which NVTX they were written against. */
    const NvtxExportTableVersionInfo *vi = getExportTable(NVTX_ETID_VERSIONINFO);
    if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion)
        vi->SetInjectionNvtxVersion(NVTX_VERSION);
    return filled > 0;
}

/* What an instance calls for each extension module it uses, at that
   module's first call (nvtxDetail/nvtxExtInit.h).  The payload module's
   range slots are ours; every other slot, and every other module's, NVTX
   then makes a no-op.  1: attached (nothing to attach is no failure); 0:
   the shim is disabled, and the module's calls stay no-ops. */
int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info)
{
    if (!info || !sc_ranges_configure())
        return 0;
    if (info->structSize < sizeof *info || info->moduleId != NVTX_EXT_PAYLOAD_MODULEID || info->segmentsCount < 1 ||
        !info->segments)
        return 1;
    static const struct { unsigned id; intptr_t fn; } ext[] = {
        {NVTX3EXT_CBID_nvtxRangePushPayload, (intptr_t)push_payload},
        {NVTX3EXT_CBID_nvtxRangePopPayload, (intptr_t)pop_payload},
        {NVTX3EXT_CBID_nvtxRangeStartPayload, (intptr_t)start_payload},
        {NVTX3EXT_CBID_nvtxRangeEndPayload, (intptr_t)end_payload},
    };
    nvtxExtModuleSegment_t *seg = &info->segments[0];
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (seg->functionSlots && ext[i].id < seg->slotCount)
            seg->functionSlots[ext[i].id] = ext[i].fn;
    return 1;
}
