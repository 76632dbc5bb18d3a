#!/usr/bin/env python3
"""via_user.py: a program whose CUDA call is made by a framework
(tests/pyframes/site-packages/fakeframework) deep below the program's own
line, as Lightning's batch_to is below the user's tr.fit(...).  Calls the
CUDA runtime through ctypes (the simulator's under streamcheck --simulate);
tests/pyframes/via.sh checks that the report shows the program's line, with
the framework's frame that made the call beside it."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))
import fakeframework.apply_func as fw  # noqa: E402

NBYTES = 1 << 16
rt = ctypes.CDLL("libcudart.so.13")
dev = ctypes.c_void_p()
stream = ctypes.c_void_p()
if rt.cudaMalloc(ctypes.byref(dev), ctypes.c_size_t(NBYTES)) or \
        rt.cudaStreamCreateWithFlags(ctypes.byref(stream), 1):
    sys.exit("via_user.py: the CUDA runtime failed")
host = ctypes.create_string_buffer(NBYTES)   # pageable
rt.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
for _ in range(3):
    if fw.fit(rt, dev, host, NBYTES, stream, 100):  # @fit
        sys.exit("via_user.py: cudaMemcpyAsync failed")
rt.cudaStreamSynchronize(stream)
print("via_user: done")
