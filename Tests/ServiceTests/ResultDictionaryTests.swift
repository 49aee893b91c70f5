import DBusKit
import LinkRouterCore
import Testing

@testable import LinkRouterService

/// `Wait`'s answer as the bus carries it: what each kind of result leaves out.
@Suite("Wait's result dictionary")
struct ResultDictionaryTests {
    static func keys(_ v: DBusValue) -> [String] {
        guard case .dictionary(_, _, let entries) = v else { return [] }
        return entries.compactMap(\.key.stringValue)
    }

    @Test("a sign-out's way back (no code) has state and callback_uri but no code; a login's has its code")
    func signOutHasNoCode() {
        var r = AuthorizationResult(
            code: "", state: "s", redirectURI: "com.example.app:/callback",
            callbackURI: "com.example.app:/callback?state=s", issuer: nil, codeVerifier: nil,
            nonce: nil)
        #expect(Self.keys(ResultDictionary.make(r)) == ["state", "redirect_uri", "callback_uri"])
        r.code = "c"
        #expect(Self.keys(ResultDictionary.make(r)).first == "code")
    }
}
