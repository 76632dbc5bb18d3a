/* dlsym_tramp.S: the exported dlsym().
 *
 * glibc's dlsym resolves RTLD_NEXT relative to its caller, which it finds
 * from its own return address.  If our override called the real dlsym from
 * C, RTLD_NEXT would mean "next after streamcheck" for every program, and an
 * interposer that looks itself up with RTLD_NEXT could find itself.  So for
 * RTLD_NEXT this stub jumps straight to the real dlsym, leaving the caller's
 * return address in place; every other handle goes to sc_dlsym_impl (C),
 * which may substitute our wrappers for CUDA entry points.
 */
#if defined(__x86_64__)
        .text
        .globl  dlsym
        .type   dlsym, @function
dlsym:
        .cfi_startproc
        cmpq    $-1, %rdi               /* RTLD_NEXT is (void *) -1 */
        je      1f
        jmp     sc_dlsym_impl
1:      movq    sc_real_dlsym(%rip), %rax
        testq   %rax, %rax
        jz      2f
        jmp     *%rax
2:      /* Not resolved yet: resolve without disturbing the return address. */
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        pushq   %rsi
        .cfi_adjust_cfa_offset 8
        subq    $8, %rsp                /* keep the stack 16-byte aligned for the call */
        .cfi_adjust_cfa_offset 8
        call    sc_resolve_real_dlsym
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        testq   %rax, %rax
        jz      3f
        jmp     *%rax
3:      ret                             /* NULL: no real dlsym (cannot happen with glibc) */
        .cfi_endproc
        .size   dlsym, .-dlsym
#endif
        .section .note.GNU-stack,"",@progbits
