import DBusKit
import Glibc
import LinkRouterCore
import SystemKit

/// How `wait`, `login` and `token refresh` print what the daemon answered.
/// A code result prints as it is; a token result prints who signed in and
/// when the access token expires, never the tokens themselves unless asked
/// (`--show-tokens`, `--json`): a terminal's scrollback is not a secret store.
enum ResultOutput {
    /// The keys that carry secrets, printed only on request.
    static let secrets: Set<String> = ["access_token", "refresh_token", "id_token"]

    static func print(_ reply: DBusValue?, json: Bool, showTokens: Bool) {
        if json {
            Output.json(JSON(vardict: reply, raw: ["claims"]))
            return
        }
        var text: [String: String] = [:]
        var order: [String] = []
        for (key, wrapped) in reply?.stringKeyedEntries ?? [] {
            guard let t = wrapped.plainText else { continue }
            text[key] = t
            order.append(key)
        }
        guard text["access_token"] != nil else {
            Output.fields(order.map { ($0, text[$0]!) })
            return
        }
        // A refresh may come without an ID token (OpenID Connect Core §12.2): then no one to name.
        if let sub = text["sub"] {
            var who = "Signed in as " + sub
            let details = [text["name"], text["email"]].compactMap { $0 }
            if !details.isEmpty { who += " (" + details.joined(separator: ", ") + ")" }
            if let iss = text["iss"] { who += " at " + iss }
            // What a provider said: never a terminal's command.
            Output.line(PrintableText.shown(who) + ".")
        } else {
            Output.line("Got a new access token" + (text["iss"].map { " from " + $0 } ?? "") + ".")
        }
        var access = "The access token (\(text["token_type"] ?? "?")"
        if let scope = text["scope"] { access += ", scope \"\(scope)\"" }
        access += ")"
        if let at = text["expires_at"].flatMap({ Int64($0) }) {
            access += " expires at \(utc(at)) (\(relative(at - Int64(time(nil)))))"
        } else {
            access += " has no stated expiry"
        }
        Output.line(access + "." + (text["refresh_token"] != nil ? " A refresh token was issued." : ""))
        if showTokens {
            Output.fields(order.filter { secrets.contains($0) }.map { ($0, text[$0]!) })
        } else {
            StandardStreams.err("The tokens are not shown; use --json or --show-tokens to print them.\n")
        }
    }

    /// `2026-12-03 16:00:00 UTC`, or with `format` another strftime form.
    static func utc(_ seconds: Int64, format: String = "%Y-%m-%d %H:%M:%S UTC") -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `in 59 min`, `in 2 h 5 min`, `3 min ago`.
    static func relative(_ seconds: Int64) -> String {
        let m = abs(seconds) / 60
        let span = m >= 60 ? "\(m / 60) h \(m % 60) min" : m > 0 ? "\(m) min" : "\(abs(seconds)) s"
        return seconds >= 0 ? "in " + span : span + " ago"
    }
}
