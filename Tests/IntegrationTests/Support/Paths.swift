import LinkRouterCore
import SystemKit

/// Where the built programs and the repository are.
enum Paths {
    /// The package root, from this file's place in it.
    static let root: String = {
        var p = #filePath
        for _ in 0..<4 { p = FileSystem.directoryName(p) }
        return p
    }()

    /// `$LINKROUTER_BIN_DIR`, or the debug build.
    static let bin: String =
        Environment.nonEmpty("LINKROUTER_BIN_DIR") ?? FileSystem.resolve(root + "/.build/debug") ?? root
        + "/.build/debug"
    /// The front (Embedded Swift): what every test runs as `linkctl`.
    static var linkctl: String { bin + "/linkctl" }
    /// The full linkctl the front hands every other verb to.
    static var linkctlFull: String { bin + "/" + LinkctlLayout.fullName }
    static var linkrouterd: String { bin + "/linkrouterd" }
    static var fixtures: String { root + "/Tests/IntegrationTests/Fixtures" }
}
