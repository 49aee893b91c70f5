/// linkctl's front: the `linkctl` on `PATH`. Built in Embedded Swift, it
/// starts like a C program (no Swift runtime to bring up), so the verbs run on
/// every click cost what a `dbus-send` costs. It serves `open` while the
/// daemon answers, `token` (FrontToken says which forms), git's credential
/// helper for an account given by name, kubectl's for an account or issuer,
/// and docker's `get`; every other verb, and every other case, it hands to
/// the full linkctl by `exec` with the same arguments (`LinkctlLayout`),
/// which prints, parses and refuses exactly as it always has.
@_cdecl("LinkctlFront_main")
func linkctlFrontMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let process = FrontProcess(argc: argc, argv: argv)
    guard let args = process.arguments(), args.count >= 2 else { process.handOver() }
    let program = args[0].split(separator: "/").last.map(String.init) ?? args[0]
    // Run as git's helper (`credential.helper = linkrouter`): `linkctl credential git` by another name.
    if program == LinkctlLayout.gitHelperName {
        guard let request = FrontGit.request(args[1...]) else { process.handOver() }
        return FrontGit.run(request, process)
    }
    // Docker's helper: `get`, which docker runs before each pull and push; its other operations are the full linkctl's.
    if program == LinkctlLayout.dockerHelperName {
        guard args.count == 2, args[1] == "get" else { process.handOver() }
        return FrontDocker.get(process)
    }
    switch args[1] {
    case "open":
        guard let uri = FrontOpen.link(args[2...]) else { process.handOver() }
        return FrontOpen.run(uri, process)
    case "token":
        guard let request = FrontToken.request(args[2...]) else { process.handOver() }
        return FrontToken.run(request, process)
    case "credential" where args.count > 2 && args[2] == "git":
        guard let request = FrontGit.request(args[3...]) else { process.handOver() }
        return FrontGit.run(request, process)
    case "credential" where args.count > 2 && args[2] == "kube":
        guard let request = FrontKube.request(args[3...]) else { process.handOver() }
        return FrontKube.run(request, process)
    default:
        process.handOver()
    }
}
