// swift-tools-version:6.0
import Foundation
import PackageDescription

/// The host's Debian multiarch directory and Swift target (the manifest is built for the host).
#if arch(arm64)
    let multiarch = "aarch64-linux-gnu"
    let swiftTarget = "aarch64-unknown-linux-gnu"
#else
    let multiarch = "x86_64-linux-gnu"
    let swiftTarget = "x86_64-unknown-linux-gnu"
#endif

/// Embedded Swift's Unicode tables (String comparison and case), which the front's String code needs at link time:
/// from the toolchain that runs this manifest (`usr/bin/swift` → `usr/lib/swift/embedded/…`).
let embeddedUnicodeTables: String = {
    let library = "lib/swift/embedded/" + swiftTarget + "/libswiftUnicodeDataTables.a"
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":") {
        guard FileManager.default.isExecutableFile(atPath: String(directory) + "/swift") else { continue }
        let candidate = URL(fileURLWithPath: String(directory) + "/swift").resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(library).path
        if FileManager.default.fileExists(atPath: candidate) { return candidate }
    }
    return "/opt/swift/usr/" + library
}()

/// Debian's static libdbus (libdbus-1-dev), which linkctl's front links so that it starts without loading libdbus-1.so
/// and libsystemd behind it; without the archive, the front links libdbus-1.so like everything else.
let libdbusArchive = "/usr/lib/" + multiarch + "/libdbus-1.a"
/// The front's compile: whole-module, for size, its own `main`, no static-stdlib resource directory (Embedded Swift has
/// its own), and libdbus's headers for CDBusFront (which has no pkg-config of its own).
let frontCompiling = [
    "-wmo", "-Osize", "-parse-as-library", "-no-static-stdlib", "-Xcc", "-I/usr/include/dbus-1.0", "-Xcc",
    "-I/usr/lib/" + multiarch + "/dbus-1.0/include",
]
/// Debian's static libjansson (libjansson-dev), for the one verb of the front that reads JSON (`credential kube`).
let libjanssonArchive = "/usr/lib/" + multiarch + "/libjansson.a"
/// The front's link: libm, Embedded Swift's Unicode tables, libdbus and libjansson (static where they can be).
let frontLinking: [LinkerSetting] =
    [.linkedLibrary("m"), .unsafeFlags([embeddedUnicodeTables])]
    + (FileManager.default.fileExists(atPath: libdbusArchive)
        ? [.unsafeFlags([libdbusArchive])] : [.linkedLibrary("dbus-1")])
    + (FileManager.default.fileExists(atPath: libjanssonArchive)
        ? [.unsafeFlags([libjanssonArchive])] : [.linkedLibrary("jansson")])

/// linkrouter: a deep-link router for Linux desktops.
///
/// Layers (docs/architecture.md): the C modules are imported only by their thin
/// wrapper targets; `LinkRouterCore` and `Freedesktop` are pure (no I/O, no C);
/// the executables wire them together.
let package = Package(
    name: "linkrouter",
    products: [
        .executable(name: "linkrouterd", targets: ["LinkRouterd"]),
        // `linkctl` is the front (Embedded Swift; it serves the hot verbs and hands the rest on); `linkctl-full` the
        // whole CLI, which the front runs for every other verb (LinkRouterCore/Embedded/LinkctlLayout.swift).
        .executable(name: "linkctl", targets: ["LinkctlFront"]),
        .executable(name: "linkctl-full", targets: ["linkctl"]),
    ],
    targets: [
        // C system libraries: module.modulemap + shim.h, nothing else.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // Headers only: the library is dlopen()ed on first use (see Loopback/MicroHTTPD.swift, HTTPKit/LibCurl.swift,
        // JSONKit/LibJansson.swift).
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CJansson", providers: [.apt(["libjansson-dev"])]),
        .systemLibrary(name: "CLinux"),
        // The C library's headers for linkctl's front, which cannot import Glibc (Embedded Swift), and libdbus's as
        // CDBus has them, without CDBus's `link`: the front links Debian's static libdbus (frontLinking).
        .systemLibrary(name: "CLibc"),
        .systemLibrary(name: "CDBusFront"),
        // Jansson's header for linkctl's front, which links Debian's static libjansson (frontLinking).
        .systemLibrary(name: "CJanssonFront"),
        // No header of libsecret's: the few GLib/libsecret types its calls use are declared in the shim; dlopen()ed
        // (SecretKit/LibSecret.swift).
        .systemLibrary(name: "CSecret"),
        // No header of libqrencode's either: its one type and two calls are in the shim; dlopen()ed
        // (TerminalQR/QRCode.swift).
        .systemLibrary(name: "CQREncode"),
        // No header of libsodium's: its crypto_box calls are declared in the shim; dlopen()ed (SodiumKit/LibSodium.swift).
        .systemLibrary(name: "CSodium"),

        // Pure libraries: the routing rules and the freedesktop file formats.
        .target(name: "LinkRouterCore", exclude: ["Embedded/README.md"]),
        .target(name: "Freedesktop"),
        // The bus contract: names, error names, the interface tables (rows with their handlers) and their XML.
        .target(name: "LinkRouterAPI", dependencies: ["LinkRouterCore", "DBusKit"]),
        // What the daemon and linkctl share on disk: where (LinkRouterPaths) and the formats.
        .target(name: "LinkRouterFiles", dependencies: ["LinkRouterCore", "Freedesktop", "SystemKit"]),

        // Wrappers: each owns its C handles and speaks Swift types and errors.
        .target(name: "SystemKit", dependencies: ["CLinux"]),
        .target(name: "DBusKit", dependencies: ["CDBus", "SystemKit"]),
        .target(name: "OpenSSLKit", dependencies: ["COpenSSL", "LinkRouterCore", "SystemKit"]),
        .target(name: "TerminalQR", dependencies: ["CQREncode", "SystemKit"]),
        .target(name: "JSONKit", dependencies: ["CJansson", "LinkRouterCore", "SystemKit"]),
        // JWS rules (alg policy, key choice, compact form) over OpenSSLKit's keys and JSONKit's parser; no C.
        .target(name: "JOSE", dependencies: ["OpenSSLKit", "JSONKit", "LinkRouterCore"]),
        .target(name: "Store", dependencies: ["CSQLite", "LinkRouterCore", "SystemKit"]),
        .target(name: "Loopback", dependencies: ["CMicroHTTPD", "SystemKit", "LinkRouterCore"]),
        // The daemon's HTTPS client (discovery, JWKS, token endpoint); its caller names it in User-Agent.
        .target(name: "HTTPKit", dependencies: ["CCurl", "SystemKit"]),
        // The Secret Service through libsecret, on a worker thread with a deadline; the collection's state asked over
        // D-Bus.
        .target(name: "SecretKit", dependencies: ["CSecret", "DBusKit", "SystemKit"]),
        // libsodium's crypto_box and base64, for oidc-agent's encrypted client protocol.
        .target(name: "SodiumKit", dependencies: ["CSodium", "SystemKit"]),
        // Discovery, the token endpoint and ID-token verification (OpenID Connect), over HTTPKit and JOSE.
        .target(
            name: "OpenIDConnect",
            dependencies: ["HTTPKit", "JOSE", "JSONKit", "OpenSSLKit", "LinkRouterCore", "SystemKit"]),
        // Desktop files, mimeapps.list and launching browsers, for the daemon and linkctl alike.
        .target(
            name: "DesktopIntegration",
            dependencies: ["Freedesktop", "SystemKit", "LinkRouterCore", "LinkRouterFiles", "LinkRouterAPI", "DBusKit"]),

        // The daemon's wiring, as a library so the executable stays a few lines.
        .target(
            name: "LinkRouterService",
            dependencies: [
                "LinkRouterCore", "LinkRouterAPI", "Freedesktop", "SystemKit", "DBusKit", "OpenSSLKit", "Store",
                "Loopback",
                "DesktopIntegration", "LinkRouterFiles", "OpenIDConnect", "HTTPKit", "SecretKit", "JSONKit", "JOSE",
                "SodiumKit",
            ]),
        .executableTarget(name: "LinkRouterd", dependencies: ["LinkRouterService"]),
        .executableTarget(
            name: "linkctl",
            dependencies: [
                "LinkRouterCore", "LinkRouterAPI", "Freedesktop", "SystemKit", "DBusKit", "DesktopIntegration",
                "LinkRouterFiles", "JSONKit", "TerminalQR", "SecretKit", "HTTPKit",
            ],
            exclude: ["Embedded/README.md"]),

        // linkctl's front: Embedded Swift (no runtime start-up), whole-module and size-optimised, on libdbus. Its
        // Shared/ holds two links, to the Embedded folders of LinkRouterCore and linkctl, whose files it compiles as
        // they are (each folder's README says what they keep to).
        .executableTarget(
            name: "LinkctlFront", dependencies: ["CDBusFront", "CJanssonFront", "CLibc", "CNoSocketActivation"],
            exclude: ["Shared/Core/README.md", "Shared/CLI/README.md"],
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                // The shared files that need the core import it only outside the front, which compiles the core's
                // Embedded folder itself (Sources/linkctl/Embedded/README.md).
                .define("LINKCTL_FRONT"),
                .unsafeFlags(frontCompiling),
            ],
            linkerSettings: frontLinking),
        // libsystemd's socket-activation calls, answered "none" for the front's static libdbus (the file says why).
        .target(name: "CNoSocketActivation"),

        // bench/run's driver: measures the daemon beside floors taken in the same run.
        .executableTarget(
            name: "linkrouter-bench",
            dependencies: ["DBusKit", "SystemKit", "LinkRouterCore", "LinkRouterAPI", "Freedesktop", "JSONKit"],
            path: "bench/Sources"),

        // fuzz/: libFuzzer targets (built with -D FUZZING -sanitize=fuzzer,address by fuzz/run);
        // a normal build makes them replay their corpus, which scripts/test does.
        .target(name: "FuzzDriver", dependencies: ["SystemKit"], path: "fuzz/Sources/FuzzDriver"),
        .executableTarget(
            name: "callback-fuzz", dependencies: ["FuzzDriver", "LinkRouterCore"], path: "fuzz/Sources/CallbackFuzz"),
        .executableTarget(
            name: "message-fuzz",
            dependencies: [
                "FuzzDriver", "DBusKit", "LinkRouterCore", "LinkRouterAPI", "LinkRouterService", "SystemKit",
            ],
            path: "fuzz/Sources/MessageFuzz"),

        // A real gnome-keyring for the tests that need one (the wrapper and the integration tests alike).
        .target(
            name: "SecretServiceTesting", dependencies: ["DBusKit", "SystemKit"], path: "Tests/SecretServiceTesting"),
        .target(name: "StoreTesting", dependencies: ["SystemKit"], path: "Tests/StoreTesting"),
        // Turning an EventLoop until something happened, for tests whose client and server share the loop.
        .target(name: "LoopTesting", dependencies: ["SystemKit"], path: "Tests/LoopTesting"),
        .testTarget(name: "LinkRouterCoreTests", dependencies: ["LinkRouterCore", "LinkRouterAPI"]),
        // The rules linkctl and its front print and parse by (`Sources/linkctl/Embedded`), in the full linkctl.
        .testTarget(name: "LinkctlTests", dependencies: ["linkctl", "LinkRouterCore"]),
        .testTarget(name: "FreedesktopTests", dependencies: ["Freedesktop"]),
        .testTarget(
            name: "WrapperTests",
            dependencies: [
                "OpenSSLKit", "DBusKit", "SystemKit", "Store", "JSONKit", "JOSE", "HTTPKit", "SecretKit",
                "SecretServiceTesting", "StoreTesting", "TerminalQR",
            ],
            exclude: ["Fixtures"]),
        // Discovery, JWKS and the token endpoint in the test's process, against a scripted server on the test's loop.
        .testTarget(
            name: "OpenIDConnectTests",
            dependencies: [
                "OpenIDConnect", "HTTPKit", "JOSE", "OpenSSLKit", "JSONKit", "LinkRouterCore", "SystemKit",
                "LoopTesting",
            ]),
        // The loopback listener in the test's process: real requests over 127.0.0.1 and ::1.
        .testTarget(name: "LoopbackTests", dependencies: ["Loopback", "SystemKit", "LoopTesting"]),
        // The daemon's components and executor, run in the test's process on a bus of its own.
        .testTarget(
            name: "ServiceTests",
            dependencies: [
                "DBusKit", "SystemKit", "LinkRouterCore", "LinkRouterAPI", "LinkRouterFiles", "LinkRouterService",
            ]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "DBusKit", "SystemKit", "LinkRouterCore", "LinkRouterAPI", "Freedesktop", "DesktopIntegration",
                "OpenSSLKit", "JOSE", "LinkRouterFiles",
                "SecretServiceTesting", "StoreTesting",
            ], exclude: ["Golden", "Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
