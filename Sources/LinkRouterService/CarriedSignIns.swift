import LinkRouterCore
import SystemKit

/// The accounts whose sign-in notice a stopping daemon withdrew (`Effect.carrySignIns`), for the next daemon to
/// post again (`Router.signInsCarried`): `$XDG_RUNTIME_DIR/linkrouter/sign-ins`, one line per account (its qualified
/// name and issuer, tab-separated; neither holds a tab or a newline), read once and deleted at start. Nothing
/// secret: the same names `linkctl accounts` lists.
struct CarriedSignIns {
    let path: String

    static let header = "linkrouter-sign-ins 1"

    func keep(_ keys: [AccountKey]) throws(SystemError) {
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o700)
        let lines = [Self.header] + keys.map { $0.qualifiedName + "\t" + $0.issuer }
        try FileSystem.writeAtomically(path, text: lines.joined(separator: "\n") + "\n", permissions: 0o600)
    }

    /// What an earlier daemon left, once: the file is deleted as it is read.
    func take() -> [AccountKey] {
        guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20) else { return [] }
        try? FileSystem.remove(path)
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.first == Self.header else { return [] }
        return lines.dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty else { return nil }
            return AccountKey(qualifiedName: fields[0], issuer: fields[1])
        }
    }
}
