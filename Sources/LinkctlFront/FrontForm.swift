/// The forms linkctl's front serves itself, one row each, read by its dispatch (`linkctlFrontMain`) as OpenBSD's
/// `ntpctl` reads its table of verbs: a row is named by the program the front runs as (`linkctl`, or a helper's name
/// that git or docker runs) and the words after it, and serves the rest of the line when that rest is one of its
/// forms. Everything else, and a rest that is not one of the row's forms, is the full linkctl's (`handOver`).
/// `LinkctlFrontTests.servedByTheFront` runs every row against a front with no full linkctl beside it.
enum FrontForm: CaseIterable {
    /// `linkctl open URI`, while the daemon answers.
    case open
    /// `linkctl token NAME|--issuer URL …` (`FrontToken` says which options).
    case token
    /// `linkctl credential git --account NAME get|store|erase`.
    case credentialGit
    /// `linkctl credential kube --account NAME|--issuer URL`.
    case credentialKube
    /// git's helper by its own name (`credential.helper = linkrouter`): `credential git` by another name.
    case gitHelper
    /// docker's helper by its own name, `get`; its other operations are the full linkctl's.
    case dockerGet

    /// The helper's name the row is for (the last part of `argv[0]`); nil: `linkctl`, by any name that is not a
    /// helper's (a copy, a link).
    var program: String? {
        switch self {
        case .open, .token, .credentialGit, .credentialKube: nil
        case .gitHelper: LinkctlLayout.gitHelperName
        case .dockerGet: LinkctlLayout.dockerHelperName
        }
    }

    /// The words after the program that name the row.
    var words: [String] {
        switch self {
        case .open: ["open"]
        case .token: ["token"]
        case .credentialGit: ["credential", "git"]
        case .credentialKube: ["credential", "kube"]
        case .gitHelper: []
        case .dockerGet: ["get"]
        }
    }

    /// The row a command line names, and the rest of the line after its words: a helper's name picks its row
    /// whatever follows; `linkctl`'s rows are told apart by their words.
    static func named(_ program: String, _ arguments: ArraySlice<String>) -> (FrontForm, rest: ArraySlice<String>)? {
        let helper = allCases.contains { $0.program == program }
        for form in allCases where form.program == (helper ? program : nil) {
            let words = form.words
            guard arguments.count >= words.count, Array(arguments.prefix(words.count)) == words else { continue }
            return (form, arguments.dropFirst(words.count))
        }
        return nil
    }

    /// The rest of the line served, or nil when it is not one of the row's forms (the front hands it over).
    func serve(_ rest: ArraySlice<String>, _ process: FrontProcess) -> Int32? {
        switch self {
        case .open:
            guard let uri = FrontOpen.link(rest) else { return nil }
            return FrontOpen.run(uri, process)
        case .token:
            guard let request = FrontToken.request(rest) else { return nil }
            return FrontToken.run(request, process)
        case .credentialGit, .gitHelper:
            guard let request = FrontGit.request(rest) else { return nil }
            return FrontGit.run(request, process)
        case .credentialKube:
            guard let request = FrontKube.request(rest) else { return nil }
            return FrontKube.run(request, process)
        case .dockerGet:
            guard rest.isEmpty else { return nil }
            return FrontDocker.get(process)
        }
    }
}
