import LinkRouterCore
import Testing

@testable import linkctl

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

    @Test("the URL git asked about: protocol, host and path; none without a host")
    func url() {
        #expect(
            GitCredentialMessage([("protocol", "https"), ("host", "git.example.com"), ("path", "team/repo.git")]).url
                == "https://git.example.com/team/repo.git")
        #expect(GitCredentialMessage([("protocol", "https")]).url == nil)
    }
}
