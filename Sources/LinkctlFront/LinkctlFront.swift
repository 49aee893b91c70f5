/// linkctl's front: the `linkctl` on `PATH`. Built in Embedded Swift, it
/// starts like a C program (no Swift runtime to bring up), so the verbs run on
/// every click cost what a `dbus-send` costs. It serves `open` while the
/// daemon answers, and `token NAME [--min-valid SECONDS]`; every other verb, and every other case, it hands to the
/// full linkctl by `exec` with the same arguments (`LinkctlLayout`), which
/// prints, parses and refuses exactly as it always has.
@_cdecl("LinkctlFront_main")
func linkctlFrontMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let process = FrontProcess(argc: argc, argv: argv)
    guard let args = process.arguments(), args.count >= 2, !isHelperName(args[0]) else { process.handOver() }
    switch args[1] {
    case "open":
        guard let uri = FrontOpen.link(args[2...]) else { process.handOver() }
        return FrontOpen.run(uri, process)
    case "token":
        guard let request = FrontToken.request(args[2...]) else { process.handOver() }
        return FrontToken.run(request, process)
    default:
        process.handOver()
    }
}

/// Run as docker's or git's credential helper (a symlink's name): the full linkctl serves those.
func isHelperName(_ program: String) -> Bool {
    let base = program.split(separator: "/").last.map(String.init) ?? program
    return base == LinkctlLayout.dockerHelperName || base == LinkctlLayout.gitHelperName
}
