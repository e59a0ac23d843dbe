# Sourced by the VM harness: its download and build folder, once per
# machine rather than per clone (the guest kernel, its debuginfo, fs/ubifs
# built from its source), so that make check in a new clone and .ci/run
# share one copy.  TRACEKIT_VM_CACHE chooses another.
TRACEKIT_VM_CACHE=${TRACEKIT_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracekit-vm}
export TRACEKIT_VM_CACHE
