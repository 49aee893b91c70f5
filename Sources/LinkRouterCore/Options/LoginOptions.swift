/// What a code login keeps of the options it began with, as the caller gave
/// them (once `SessionPlan.make` checked them): one declaration each, an
/// option row that linkctl's flags, the D-Bus decoder, the docs test and the
/// store all read. `SessionRequest.options` lifts these rows; the store
/// writes each under its option key (`storedRows`). A new option of this kind
/// is a property and a row here, and its use.
public struct LoginOptions: Sendable, Equatable {
    /// Who reopens `resume_uri`: a `ResumeMode`'s name (`browser` when not given).
    public var resume: String?
    /// More hosts `resume_uri` may be on (lowercase host names: no space, so stored space-separated).
    public var resumeHosts: [String] = []
    /// `resume_uri`'s path must start with this.
    public var resumePathPrefix: String?
    /// A callback without `iss` fails too (RFC 9207).
    public var requireIssuer = false
    /// The caller's desktop file id: a loopback login's success page offers the way back to it (`ReturnLink`).
    public var returnTo: String?

    public init() {}

    /// `resume`, read (`SessionPlan.make` refused any other word).
    public var resumeMode: ResumeMode { resume.flatMap(ResumeMode.init(rawValue:)) ?? .browser }

    /// The same, requiring `iss` also when the provider's metadata says it always sends one (RFC 9207 §3).
    func requiringIssuer(_ metadataSays: Bool) -> LoginOptions {
        var o = self
        o.requireIssuer = o.requireIssuer || metadataSays
        return o
    }

    /// The row of `resume`.
    static let resumeRow = OptionRow<LoginOptions>(
        "resume", .string({ $0.resume = $1 }, get: { $0.resume }), limit: .option,
        flag: .value("resume", placeholder: "MODE"),
        help: "who reopens resume_uri: browser (default), client or none",
        doc:
            "who reopens `resume_uri`: `browser` (default: the daemon, in the browser that began the login), `client` (a `ResumeRequested` signal to the owner), `none`"
    )

    /// The row of `resume_hosts`.
    static let resumeHostsRow = OptionRow<LoginOptions>(
        "resume_hosts", .strings({ $0.resumeHosts = $1 }, get: { $0.resumeHosts }),
        flag: .repeated("resume-host", placeholder: "HOST"), help: "another host resume_uri may be on",
        doc: "more hosts `resume_uri` may be on (lowercase names, default port)")

    /// The row of `resume_path_prefix`.
    static let resumePathPrefixRow = OptionRow<LoginOptions>(
        "resume_path_prefix", .string({ $0.resumePathPrefix = $1 }, get: { $0.resumePathPrefix }),
        limit: .option, flag: .value("resume-path-prefix", placeholder: "PATH"),
        help: "resume_uri must be under this path",
        doc: "`resume_uri`'s path must start with this (e.g. `/vipps-login-idp/`)")

    /// The row of `return_to`.
    static let returnToRow = OptionRow<LoginOptions>(
        "return_to", .string({ $0.returnTo = $1 }, get: { $0.returnTo }), limit: .option,
        flag: .value("return-to", placeholder: "DESKTOP-ID"),
        help: "a loopback login's page offers a way back to this app (its desktop file id)",
        doc:
            "the calling app's desktop file id (`org.example.App.desktop`): a loopback login's success page offers \"Return to NAME\" (NAME from that entry), a link of linkrouter's own scheme (`org.linkrouter.return:`), whose click sends the owner `ReturnRequested` with the click's activation token, so the app presents its window"
    )

    /// The row of `require_iss`.
    static let requireIssuerRow = OptionRow<LoginOptions>(
        "require_iss", .bool({ $0.requireIssuer = $1 }, get: { $0.requireIssuer }),
        flag: .setsTrue("require-iss"), help: "fail a callback that carries no iss",
        doc:
            "with `issuer`: a callback without `iss` fails too (for providers whose metadata says `authorization_response_iss_parameter_supported`)"
    )

    /// The rows, in no order of their own (`SessionRequest.options` places them).
    public static let rows = OptionTable<LoginOptions>(
        method: "BeginSession", [resumeRow, resumeHostsRow, resumePathPrefixRow, returnToRow, requireIssuerRow])

    /// `row`, as a `BeginSession` option.
    static func sessionRow(_ row: OptionRow<LoginOptions>) -> OptionRow<SessionRequest> {
        row.lifted({ $0.login }, { $0.login = $1 })
    }
}

extension OptionTable {
    /// The keys of the rows the store keeps, in the table's order.
    var storedKeys: [String] { rows.map(\.key) }

    /// Each row's value as a stored line, at `base` + its index: text as it
    /// is, `1` for a true boolean, a list space-separated (its items hold no
    /// space: host names), a number in decimal. Nothing for an absent value.
    func write(_ request: Request, _ w: inout StoredWriter, at base: Int) {
        for i in fields.indices {
            switch fields[i] {
            case .string(_, let get): w.add(base + i, get(request))
            case .bool(_, let get): w.flag(base + i, get?(request) ?? false)
            case .uint32(_, let get): w.add(base + i, get?(request).map { String($0) })
            case .strings(_, let get):
                let items = get?(request) ?? []
                w.add(base + i, items.isEmpty ? nil : items.joined(separator: " "))
            case .stringMap: break
            }
        }
    }

    /// The rows' values read back from `r` into `request`; a number that does not read is damage.
    func read(_ r: StoredReader, at base: Int, into request: inout Request, _ reuse: inout StoredReuse)
        throws(StoredDamage)
    {
        for i in fields.indices where r.has(base + i) {
            switch fields[i] {
            case .string(let set, _): set(&request, r.shared(base + i, &reuse) ?? "")
            case .bool(let set, _): set(&request, r.flag(base + i))
            case .uint32(let set, _):
                guard let n = r.text(base + i).flatMap({ UInt32($0) }) else { throw StoredDamage() }
                set(&request, n)
            case .strings(let set, _):
                set(&request, (r.shared(base + i, &reuse) ?? "").split(separator: " ").map(String.init))
            case .stringMap: break
            }
        }
    }
}

/// A stored value that cannot be read back: its row is dropped, and named in the log.
struct StoredDamage: Error {}
