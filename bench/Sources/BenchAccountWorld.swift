import Glibc
import SystemKit

/// A bench world with what an account needs: a gnome-keyring on its bus
/// (the daemon finds it there) and a private Glewlwyd, both stopped when it
/// goes, and the daemon started with an administrator's directory of its own.
final class BenchAccountWorld {
    let w: BenchWorld
    let keyring: Int32
    let provider: BenchProvider
    let issuer: String
    let clientID: String
    static let redirect = "com.example.bench:/callback"

    init(_ w: BenchWorld, keyring: Int32, provider: BenchProvider) throws {
        self.w = w
        self.keyring = keyring
        self.provider = provider
        issuer = try provider.string("issuer")
        clientID = try provider.string("client_id")
        try FileSystem.makeDirectories(w.root + "/etc-accounts", permissions: 0o700)
        try w.startDaemon(["--system-accounts-dir", w.root + "/etc-accounts"])
    }

    /// `linkctl account add NAME` at this provider, with `extra` options.
    func add(_ name: String, bin: String, _ extra: [String] = []) throws {
        let r = try w.run(
            [
                bin + "/linkctl", "account", "add", name, "--issuer", issuer, "--client-id", clientID, "--redirect-uri",
                Self.redirect,
            ] + extra)
        guard r.status == 0 else { throw BenchError("account add \(name) failed: \(r.errorText)") }
    }

    deinit {
        w.stopDaemon()
        Subprocess.stop(keyring, name: "the bench's gnome-keyring-daemon")
    }
}

extension Bench {
    /// The world of an accounts section `name`, or nil (with a note) when a tool it needs is missing.
    func accountWorld(_ name: String, providerOptions: [String] = [], tools: [String] = []) throws -> BenchAccountWorld?
    {
        try keyringWorld(name, tools: tools) { w, keyring in
            let provider = try BenchProvider(
                w, fixtures: fixtures, redirectURIs: [BenchAccountWorld.redirect], options: providerOptions)
            return try BenchAccountWorld(w, keyring: keyring, provider: provider)
        }
    }

    /// An accounts world whose provider is reached through the tests' tamper proxy (honest, but able to hold an
    /// answer, and counting requests), its access tokens living `lifetime` seconds; `providerOptions`: more of the
    /// provider fixture's options.
    func proxiedAccountWorld(
        _ name: String, lifetime: Int, tools: [String] = [], providerOptions: [String] = []
    ) throws -> (BenchAccountWorld, BenchTamperProxy)? {
        try keyringWorld(name, tools: tools) { w, keyring in
            let proxy = try BenchTamperProxy(w, fixtures: fixtures)
            let provider = try BenchProvider(
                w, fixtures: fixtures, redirectURIs: [BenchAccountWorld.redirect],
                options: ["--public-origin", proxy.origin, "--access-token-duration", String(lifetime)]
                    + providerOptions)
            try proxy.connect(upstream: try provider.string("direct_origin"))
            return (try BenchAccountWorld(w, keyring: keyring, provider: provider), proxy)
        }
    }

    /// Section `name`'s world with a gnome-keyring on its bus, the rest made by `make`; nil (with a note) when a tool
    /// is missing. The keyring is stopped again when `make` fails.
    private func keyringWorld<T>(_ name: String, tools: [String], _ make: (BenchWorld, Int32) throws -> T) throws -> T?
    {
        for tool in ["/usr/bin/gnome-keyring-daemon", "/usr/bin/glewlwyd"] + tools where !FileSystem.isExecutable(tool)
        {
            notes.append("\(name) not measured: \(tool) is missing (scripts/setup --test installs it)")
            return nil
        }
        let w = try world(name)
        let keyring = try keyringStarted(w)
        do { return try make(w, keyring) } catch {
            Subprocess.stop(keyring, name: "the bench's gnome-keyring-daemon")
            throw error
        }
    }
}
