public import Freedesktop
public import LinkRouterCore
public import LinkRouterFiles
import SystemKit

/// Finds the apps that take links: each registered scheme's app (from the
/// install record), and every installed desktop entry that claims https
/// prefixes (`X-LinkRouter-Claims=`), found by the freedesktop rules
/// (`$XDG_DATA_HOME` before `$XDG_DATA_DIRS`, the first entry of an id wins,
/// as in gio). One owner for the daemon's routing, `explain` and `doctor`.
public struct LinkApps {
    public let database: DesktopDatabase

    public init(database: DesktopDatabase = DesktopDatabase()) { self.database = database }

    /// Something that keeps an app or a claim from taking links.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public let subject: String
        public let reason: String
        public var description: String { subject + ": " + reason }
    }

    /// The directory of apps, and what was left out and why.
    public func directory(record: InstallRecord?) -> (apps: AppDirectory, problems: [Problem]) {
        var problems: [Problem] = []
        var schemes: [String: LinkApp] = [:]
        for (scheme, id) in (record?.apps ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let entry = database.entry(id) else {
                problems.append(
                    Problem(
                        subject: scheme,
                        reason:
                            "its app \(id) is not installed (no \(id) in \(applicationDirectories.joined(separator: ":")))"
                    ))
                continue
            }
            if let why = AppCheck.problem(entry, named: true) {
                problems.append(Problem(subject: scheme, reason: why))
                continue
            }
            schemes[scheme] = AppCheck.linkApp(entry)
        }
        var claims: [HTTPSClaim] = []
        // The user's own claims first: on an equal prefix the user's choice wins over an app's.
        for (id, prefixes) in (record?.claims ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let entry = database.entry(id) else {
                problems.append(
                    Problem(
                        subject: id,
                        reason:
                            "your claims \(prefixes.joined(separator: " ")) are ignored: \(id) is not installed (linkctl claim remove PREFIX)"
                    ))
                continue
            }
            if let why = AppCheck.problem(entry, named: true) {
                problems.append(
                    Problem(subject: id, reason: "your claims \(prefixes.joined(separator: " ")) are ignored: \(why)"))
                continue
            }
            let app = AppCheck.linkApp(entry)
            for text in prefixes {
                do { claims.append(try HTTPSClaim.parse(text, app: app)) } catch {
                    problems.append(Problem(subject: id, reason: error.message))
                }
            }
        }
        for entry in claimingEntries() {
            if let why = AppCheck.problem(entry) {
                problems.append(
                    Problem(
                        subject: entry.id,
                        reason: "its claims \(entry.claims.joined(separator: " ")) are ignored: \(why)"))
                continue
            }
            let app = AppCheck.linkApp(entry)
            for text in entry.claims {
                do { claims.append(try HTTPSClaim.parse(text, app: app)) } catch {
                    problems.append(Problem(subject: entry.id, reason: error.message))
                }
            }
        }
        let left = Set((record?.leftToBrowser ?? []).map { $0.lowercased() })
        for c in claims where left.contains(c.host) {
            problems.append(
                Problem(
                    subject: c.app.id,
                    reason:
                        "its claim \(c.prefix) is on \(c.host), which you leave to the browser (linkctl install --leave-to-browser)"
                ))
        }
        let apps = AppDirectory(schemes: schemes, claims: claims, leftToBrowser: left)
        for (prefix, ids) in apps.conflicts {
            problems.append(
                Problem(
                    subject: prefix,
                    reason:
                        "claimed by \(ids.joined(separator: " and ")); \(ids[0]) gets its links (claims made with linkctl claim add come first, then the XDG data directories' order)"
                ))
        }
        return (apps, problems)
    }

    var applicationDirectories: [String] { database.directories.dataSearchPath.map { $0 + "/applications" } }

    /// Every installed entry with `X-LinkRouter-Claims`, in precedence order.
    func claimingEntries() -> [DesktopEntry] {
        installedEntries(mentioning: "X-LinkRouter-Claims").filter { !$0.claims.isEmpty }
    }

    /// Every installed entry whose text mentions `word`, in precedence order;
    /// an id shadowed by a more important directory is skipped (as in gio).
    /// The files themselves are read: a desktop database cache may be stale.
    func installedEntries(mentioning word: String) -> [DesktopEntry] {
        var seen: Set<String> = []
        var out: [DesktopEntry] = []
        for dir in applicationDirectories {
            for (id, path) in Self.entries(in: dir) where seen.insert(id).inserted {
                guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20), text.contains(word) else {
                    continue
                }
                out.append(DesktopEntry(id: id, path: path, text: text))
            }
        }
        return out
    }

    /// The desktop files under one `applications` directory, by id (`a/b.desktop` is `a-b.desktop`), sorted.
    static func entries(in dir: String, prefix: String = "", depth: Int = 0) -> [(id: String, path: String)] {
        var out: [(String, String)] = []
        for name in FileSystem.list(dir) where !name.hasPrefix(".") {
            let path = dir + "/" + name
            if name.hasSuffix(".desktop") {
                out.append((prefix + name, path))
            } else if depth < 3, FileSystem.status(path)?.kind == .directory {
                out += entries(in: path, prefix: prefix + name + "-", depth: depth + 1)
            }
        }
        return out
    }

    /// Every entry that declares `scheme` (`MimeType=x-scheme-handler/…`) and may take its links.
    public func candidates(forScheme scheme: String) -> [DesktopEntry] {
        let mime = "x-scheme-handler/" + scheme
        return installedEntries(mentioning: mime).filter { $0.mimeTypes.contains(mime) && AppCheck.problem($0) == nil }
    }

    /// What changes when an app or a claim may have: the applications
    /// directories and the install record. Compared on every use, it costs a
    /// few `stat`s; the directory is rebuilt only when it moved.
    public func fingerprint(record path: String) -> [Int64] {
        (applicationDirectories + [path]).map { FileSystem.status($0)?.modifiedNanoseconds ?? -1 }
    }
}
