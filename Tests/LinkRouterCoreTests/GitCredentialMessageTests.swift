import Testing

@testable import LinkRouterCore

/// git's credential requests as the helper reads them (issue 36: a token is
/// only for a host reached over https, or http on a loopback host).
@Suite("git credential requests")
struct GitCredentialMessageTests {
    func servable(_ text: String) throws -> Bool {
        try GitCredentialMessage.parse(Array(text.utf8)).servable
    }

    @Test(
        "https and loopback http are served; plain http elsewhere, other protocols and a request with no host are not")
    func servableHosts() throws {
        #expect(try servable("protocol=https\nhost=git.example.com\n\n"))
        #expect(try servable("protocol=http\nhost=127.0.0.1:3000\npath=org/repo.git\n\n"))
        #expect(try servable("protocol=http\nhost=localhost\n\n"))
        #expect(try !servable("protocol=http\nhost=git.example.com\n\n"))
        #expect(try !servable("protocol=ssh\nhost=git.example.com\n\n"))
        #expect(try !servable("protocol=https\n\n"))
        #expect(try !servable("password=x\n\n"))
    }

    @Test(
        "GetToken for a URL outside the account's git_urls: AccessDenied, nothing started; under them, or with none declared, answered"
    )
    func forURL() throws {
        typealias A = AccountTokenTests
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        r.gitURLs = ["https://git.example.com/team/"]
        let forge = try Account.make(name: "work", r, owner: .user)
        var router = A.router(":1.1")
        router.apply(core: [.account(forge.key, AccountKeeper(tokens: A.tokens("t", expiresIn: 3600), loaded: true))])
        func asked(_ url: String, _ account: Account) -> Transition {
            var request = TokenRequest()
            request.forURL = url
            return router.accountCall(.getToken("work", request), accounts: [account], caller: ":1.1", now: A.now)
        }
        guard case .refused(let e) = asked("https://git.other.example.com/team/x.git", forge).reply else {
            throw A.Failure("answered for another forge")
        }
        #expect(e.code == .accessDenied && e.message.contains("git_urls"))
        guard case .token = asked("https://git.example.com/team/x.git", forge).reply else {
            throw A.Failure("own forge")
        }
        let any = try A.account()
        router.apply(core: [.account(any.key, AccountKeeper(tokens: A.tokens("t", expiresIn: 3600), loaded: true))])
        guard case .token = asked("https://anything.example.com/x.git", any).reply else {
            throw A.Failure("no git_urls")
        }
    }
}
