import Glibc

/// The parts of `stat(2)` the daemon checks before trusting a file (threat model P3).
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable { case regular, directory, symlink, socket, other }
    public let kind: Kind
    /// Permission bits only (`0o777`).
    public let permissions: UInt32
    public let owner: UInt32
    public let size: Int64
    public let modifiedNanoseconds: Int64

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        case S_IFSOCK: kind = .socket
        default: kind = .other
        }
        permissions = UInt32(st.st_mode & 0o7777)
        owner = st.st_uid
        size = Int64(st.st_size)
        modifiedNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }
}
