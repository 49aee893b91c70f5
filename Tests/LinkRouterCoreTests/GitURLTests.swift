import Testing

@testable import LinkRouterCore

/// An account that names the forges it is for (`git_urls`, issue 36) answers only for them.
@Suite("git_urls")
struct GitURLTests {
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
