internal import CLinux

/// The process's heap.
public enum Memory {
    /// Hands free heap pages back to the kernel (glibc's `malloc_trim`). A
    /// daemon that lives for weeks frees most of what a burst of sessions
    /// took, but glibc keeps free pages in the middle of its heap unless asked.
    public static func returnFreePages() { _ = malloc_trim(0) }
}
