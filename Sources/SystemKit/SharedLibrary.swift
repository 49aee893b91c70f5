import Glibc

/// A C library opened with `dlopen` on first use (libcurl, libmicrohttpd,
/// Jansson, libsecret): a program that never needs one never maps it, and
/// one that is missing fails only what needs it. Kept open for the process's
/// life, so the addresses taken from it stay valid.
public struct SharedLibrary: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    public let soname: String

    public struct OpenError: Error, Sendable {
        /// dlerror's words.
        public let reason: String
    }

    /// Opens `soname` (`RTLD_NOW | RTLD_LOCAL`: every symbol bound now, none shared with later libraries).
    public static func open(_ soname: String) -> Result<SharedLibrary, OpenError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(OpenError(reason: dlerror().map { String(cString: $0) } ?? "unknown error"))
        }
        return .success(SharedLibrary(handle: handle, soname: soname))
    }

    public func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }

    /// Sets each field of a C table of function pointers from its symbol; the
    /// names not found. The list must name every field: one it forgot would be
    /// called as NULL, so a list shorter than the table stops the program.
    public func fill<Table>(
        _ table: inout Table, _ symbols: [(String, WritableKeyPath<Table, UnsafeMutableRawPointer?>)]
    ) -> [String] {
        precondition(
            symbols.count * MemoryLayout<UnsafeRawPointer>.size == MemoryLayout<Table>.size,
            "the symbol list does not fill every field of \(Table.self)")
        var missing: [String] = []
        for (name, field) in symbols {
            table[keyPath: field] = dlsym(handle, name)
            if table[keyPath: field] == nil { missing.append(name) }
        }
        return missing
    }

    /// Looks symbols up one at a time, for a type that keeps them as fields:
    /// one not found gives an address that must never be called, and is named
    /// in `missing`, which the caller checks before using any.
    public final class Resolver {
        private let library: SharedLibrary
        public private(set) var missing: [String] = []

        init(_ library: SharedLibrary) { self.library = library }

        public func callAsFunction(_ name: String) -> UnsafeMutableRawPointer {
            if let p = library.symbol(name) { return p }
            missing.append(name)
            return UnsafeMutableRawPointer(bitPattern: 1)!
        }
    }

    public var resolver: Resolver { Resolver(self) }

    /// For a library that turned out not to be the one wanted (tests give one that is not).
    public func close() { dlclose(handle) }
}
