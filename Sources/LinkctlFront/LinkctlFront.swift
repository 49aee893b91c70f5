/// linkctl's front: the `linkctl` on `PATH`. Built in Embedded Swift, it
/// starts like a C program (no Swift runtime to bring up), so the verbs run on
/// every click cost what a `dbus-send` costs. What it serves is one table,
/// `FrontForm`: `open` while the daemon answers, `token` (FrontToken says
/// which forms), git's credential helper for an account given by name,
/// kubectl's for an account or issuer, and docker's `get`; every other verb,
/// and every other case, it hands to the full linkctl by `exec` with the same
/// arguments (`LinkctlLayout`), which prints, parses and refuses exactly as it
/// always has.
@_cdecl("LinkctlFront_main")
func linkctlFrontMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let process = FrontProcess(argc: argc, argv: argv)
    guard let args = process.arguments(), args.count >= 2 else { process.handOver() }
    let program = args[0].split(separator: "/").last.map(String.init) ?? args[0]
    // One row of the table names the line (`FrontForm`), and serves it if the rest is one of its forms.
    guard let (form, rest) = FrontForm.named(program, args[1...]), let status = form.serve(rest, process) else {
        process.handOver()
    }
    return status
}
