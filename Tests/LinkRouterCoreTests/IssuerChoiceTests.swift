import Testing

@testable import LinkRouterCore

/// An account asked for by issuer (issue 37): the only one, else the default,
/// else a refusal naming them; one default per issuer among an app's own.
@Suite("Accounts by issuer")
struct IssuerChoiceTests {
    typealias A = AccountTokenTests

    func account(_ name: String, issuer: String = A.issuer, isDefault: Bool = false, owner: Account.Owner = .user)
        throws -> Account
    {
        var r = AccountRequest()
        r.issuer = issuer
        r.clientID = "cli"
        r.isDefault = isDefault
        return try Account.make(name: name, r, owner: owner)
    }

    func pick(_ issuer: String, _ accounts: [Account]) throws(RouterError) -> String {
        try IssuerChoice.pick(issuer, among: accounts, name: \.name, issuer: \.issuer, isDefault: \.isDefault).name
    }

    @Test(
        "the only one; else the default; a trailing / is no difference; none, two without a default and two defaults are refused, naming them"
    )
    func rule() throws {
        let other = try account("elsewhere", issuer: "https://other.example.com")
        #expect(try pick(A.issuer, [other, try account("work")]) == "work")
        #expect(try pick(A.issuer + "/", [try account("work")]) == "work")
        #expect(try pick(A.issuer, [try account("work"), try account("admin", isDefault: true)]) == "admin")
        #expect(throws: RouterError.self) { try pick("https://nowhere.example.com", [other]) }
        let two = [try account("work"), try account("admin")]
        do throws(RouterError) {
            _ = try pick(A.issuer, two)
            Issue.record("two without a default picked one")
        } catch {
            #expect(error.code == .ambiguousAccount && error.message.contains("admin, work"), "\(error)")
        }
        let defaults = [try account("a", isDefault: true), try account("b", isDefault: true), try account("c")]
        do throws(RouterError) {
            _ = try pick(A.issuer, defaults)
            Issue.record("two defaults picked one")
        } catch {
            #expect(error.code == .ambiguousAccount && error.message.contains("(a, b)"), "\(error)")
        }
    }

    @Test("GetToken by issuer picks among the caller's own (an app's, not the user's); with a name too it is refused")
    func getToken() throws {
        var router = A.router(":1.1")
        router.apply(core: [.caller(":1.2", .flatpak("org.example.App"))])
        let user = try account("work")
        let mine = try account("mine", owner: .app("flatpak:org.example.App"))
        var request = TokenRequest()
        request.issuer = A.issuer
        // The app's own is its only one there: its read starts; the user's is never considered.
        let t = router.accountCall(.getToken("", request), accounts: [user, mine], caller: ":1.2", now: A.now)
        guard case .flight(.read(let key))? = A.started(t).first?.1 else { throw A.Failure("\(t.effects)") }
        #expect(key == mine.key)
        let both = router.accountCall(.getToken("work", request), accounts: [user], caller: ":1.1", now: A.now)
        guard case .refused(let e) = both.reply else { throw A.Failure("\(both.reply)") }
        #expect(e.code == .invalidArgument)
    }

    @Test(
        "AddAccount with default: the app's other default at that issuer is written again without it, then the call is answered"
    )
    func oneDefault() throws {
        var router = A.router()
        router.apply(core: [.caller(":1.2", .flatpak("org.example.App"))])
        let owner = Account.Owner.app("flatpak:org.example.App")
        let old = try account("old", isDefault: true, owner: owner)
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        r.isDefault = true
        let add = router.accountCall(.add("new", r), accounts: [old], caller: ":1.2", now: A.now)
        guard case .held(let op) = add.reply, case .accountFile(.write(let written))? = A.started(add).first?.1 else {
            throw A.Failure("\(add.reply)")
        }
        #expect(written.name == "new" && written.isDefault)
        router.apply(core: add.core)
        let first = router.completed(op, .accountFile(.done(nil)), now: A.now)
        guard case .accountFile(.write(let cleared))? = A.started(first).first?.1 else {
            throw A.Failure("no clearing: \(first.effects)")
        }
        #expect(cleared.name == "old" && !cleared.isDefault)
        #expect(
            !first.effects.contains { if case .answer = $0 { true } else { false } }, "answered before the clearing")
        router.apply(core: first.core)
        let last = router.completed(op, .accountFile(.done(nil)), now: A.now)
        #expect(last.effects.contains(.answer(op, .none)) && last.core.contains(.finish(op)))
    }
}
