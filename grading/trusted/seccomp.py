"""The system calls a sandbox refuses: one seccomp filter, the one list of them.

Both ways of starting a sandbox install the classic-BPF program ``program()`` builds
here: bubblewrap reads it on a file descriptor (``bwrap --seccomp FD``, grading/trusted/sandbox.py)
and applies it just before it runs the sandbox's first command; the fork server
(grading/trusted/forkserver.py) gets it in each request and installs it in the kernel and in every
worker the sandbox's PID 1 forks, once their uid is dropped and no_new_privs is set. The
filter is inherited by every process started inside and cannot be removed there.

Nothing the course does needs any of these calls (torch, gloo process groups, ipykernel,
matplotlib and ``labkit.workers`` run under it: tests/grading/test_sandbox_limits.py and
tests/labkit/test_workers.py run them). Each group, and why it is refused (EPERM unless said):

- **Namespaces**: ``unshare`` and ``clone`` with any ``CLONE_NEW*`` flag, and ``setns``.
  A new user namespace hands its creator every capability inside it, and with them
  the kernel code of mounts, network configuration and the rest, written for root
  (a large share of the kernel's local privilege escalations start there). Plain
  ``clone`` (fork, threads, vfork) passes. ``clone3`` answers ENOSYS: its flags are in
  memory a filter cannot read, and on ENOSYS glibc falls back to ``clone``, whose flags
  it can.
- **Mounts and the root**: ``mount``, ``umount2``, ``pivot_root``, ``chroot`` and the new
  mount API (``open_tree``, ``move_mount``, ``fsopen``, ``fsconfig``, ``fsmount``,
  ``fspick``, ``mount_setattr``): the sandbox's file tree is made before the filter and
  never changes after.
- **Kernel keyrings**: ``keyctl``, ``add_key``, ``request_key`` (not namespaced; a
  history of bugs).
- **Kernel interfaces meant for tools, not programs**: ``bpf``, ``perf_event_open``,
  ``userfaultfd`` (stalls the kernel on a page fault, the usual tool of race exploits),
  ``io_uring_setup``, ``io_uring_enter``, ``io_uring_register`` (a second way to make
  every call, unseen by this filter), ``lookup_dcookie``.
- **Other processes' memory**: ``ptrace``, ``process_vm_readv``, ``process_vm_writev``.
- **The kernel itself**: ``kexec_load``, ``kexec_file_load``, ``init_module``,
  ``finit_module``, ``delete_module``.
- **Files by handle**: ``open_by_handle_at``, ``name_to_handle_at`` (a handle opens a
  file outside the mount it names: the classic container escape).
- **The machine's state**: ``swapon``, ``swapoff``, ``reboot``, ``acct``, ``quotactl``,
  ``quotactl_fd``, ``settimeofday``, ``clock_settime``, ``clock_adjtime``, ``adjtimex``,
  ``iopl``, ``ioperm``.
- **personality**, except the query (``0xffffffff``) and ``PER_LINUX`` (``0``): the
  other settings turn off address-space randomization or make data executable.

The numbers are x86-64's, and the filter first checks that a call is one (its audit
arch): a 32-bit call (``int 0x80``, whose numbers differ: ``vm86`` and the rest) and an
x32 one answer ENOSYS. On another architecture ``program()`` returns None and the sandbox
runs without a filter (``limits_note`` in grading/trusted/sandbox.py says so).
"""

from __future__ import annotations

import errno
import platform
import struct

# x86-64 system call numbers (asm/unistd_64.h), grouped as the docstring explains.
REFUSED = {
    # namespaces (unshare and clone: only with a CLONE_NEW* flag; clone3: ENOSYS)
    "unshare": 272, "clone": 56, "clone3": 435, "setns": 308,
    # mounts and the root
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442,
    # kernel keyrings
    "keyctl": 250, "add_key": 248, "request_key": 249,
    # kernel interfaces meant for tools
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "lookup_dcookie": 212,
    # other processes' memory
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
    # the kernel itself
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176,
    # files by handle
    "open_by_handle_at": 304, "name_to_handle_at": 303,
    # the machine's state
    "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "quotactl": 179,
    "quotactl_fd": 443, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305,
    "adjtimex": 159, "iopl": 172, "ioperm": 173,
    # personality: all but the query and PER_LINUX
    "personality": 135,
}
ENOSYS_CALLS = ("clone3",)                 # answered ENOSYS, not EPERM

CLONE_NEWTIME = 0x00000080                 # unshare only (clone's low byte is its signal)
CLONE_NAMESPACES = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000   # NS CGROUP UTS IPC
                    | 0x10000000 | 0x20000000 | 0x40000000)             # USER PID NET
PERSONALITY_ALLOWED = (0xFFFFFFFF, 0)      # the query, PER_LINUX

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# classic BPF (linux/filter.h, linux/seccomp.h)
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16               # offsets in struct seccomp_data (arg 0: low half)


def supported() -> str | None:
    """Why no filter is made on this machine, or None where one is."""
    machine = platform.machine()
    if machine not in ("x86_64", "AMD64"):
        return f"the seccomp filter knows x86-64's system call numbers only; this is {machine}"
    return None


def program() -> bytes | None:
    """The filter, as the array of ``struct sock_filter`` bubblewrap's ``--seccomp`` reads
    (8 bytes an instruction), or None where ``supported()`` says why not."""
    if supported():
        return None
    code: list[tuple[int, object, object, int]] = []   # (op, true label, false label, k)

    def op(kind, k=0, true=None, false=None):
        code.append((kind, true, false, k))

    op(_LD_ABS, _ARCH)
    op(_JEQ, AUDIT_ARCH_X86_64, false="enosys")
    op(_LD_ABS, _NR)
    op(_JGE, X32_SYSCALL_BIT, true="enosys")
    special = {"unshare": "unshare", "clone": "clone", "personality": "personality"}
    for name, nr in REFUSED.items():
        target = special.get(name) or ("enosys" if name in ENOSYS_CALLS else "eperm")
        op(_JEQ, nr, true=target)
    op(_RET, _ALLOW)
    labels = {"unshare": len(code)}
    op(_LD_ABS, _ARG0)
    op(_JSET, CLONE_NAMESPACES | CLONE_NEWTIME, true="eperm", false="allow")
    labels["clone"] = len(code)
    op(_LD_ABS, _ARG0)
    op(_JSET, CLONE_NAMESPACES, true="eperm", false="allow")
    labels["personality"] = len(code)
    op(_LD_ABS, _ARG0)
    for value in PERSONALITY_ALLOWED:
        op(_JEQ, value, true="allow")
    op(_RET, _ERRNO | errno.EPERM)    # falls through to here: refused
    for label, ret in (("allow", _ALLOW), ("eperm", _ERRNO | errno.EPERM),
                       ("enosys", _ERRNO | errno.ENOSYS)):
        labels[label] = len(code)
        op(_RET, ret)
    out = []
    for i, (kind, true, false, k) in enumerate(code):
        jt = labels[true] - i - 1 if true else 0
        jf = labels[false] - i - 1 if false else 0
        assert 0 <= jt < 256 and 0 <= jf < 256, "a jump too far for classic BPF"
        out.append(struct.pack("=HBBI", kind, jt, jf, k))
    return b"".join(out)
