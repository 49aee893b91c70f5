/// A rotated set the keyring did not take by the end of a stop (locked, or
/// not answering within its deadline), kept where the next daemon finds it
/// (issue 47). A provider that rotates one-use refresh tokens has spent the
/// old one: dropping the new set with the daemon signs the person out, and
/// the keyring still holds the spent token, whose reuse makes the provider
/// revoke the whole chain.
///
/// Each account says which it prefers (`Account.unsaved`): `runtime` (the
/// default) sets the set aside in the runtime directory (memory-backed, the
/// user's own, 0600, where pending logins' codes, verifiers and DPoP keys
/// already live), `drop` keeps tokens only in the keyring and loses the set.
/// The next daemon adopts a set-aside set as newer than the keyring's, writes
/// it to the keyring (when it is locked, when it unlocks), and the copy is
/// deleted once the keyring takes it or the sign-in ends.
enum SetAside {
    /// As the daemon stops: each set still unsaved is set aside or, by its account's choice (or with no declaration
    /// left), said lost.
    static func atStop(_ core: Router, accounts: [Account]) -> [Effect] {
        var effects: [Effect] = []
        var lost: [String] = []
        for (key, state) in core.keepers.sorted(by: { $0.key.qualifiedName < $1.key.qualifiedName })
        where state.unsaved != nil {
            guard let tokens = state.tokens else { continue }
            guard let account = accounts.first(where: { $0.key == key }), account.unsaved == .runtime else {
                lost.append(key.name)
                continue
            }
            effects.append(.setAside(key, tokens))
            effects.append(
                .log(
                    LogLine(
                        .notice,
                        "Stopping with \(key.name)'s new tokens not in the keyring; they are set aside in the runtime directory until the next linkrouterd writes them there"
                    )))
        }
        if !lost.isEmpty {
            let names = lost.joined(separator: ", ")
            effects.append(
                .log(
                    LogLine(
                        .warning,
                        "Stopping with the tokens of \(names) in memory only (the keyring did not take them, and their accounts say unsaved=drop); they may need a new sign-in"
                    )))
        }
        return effects
    }

    /// At start: sets an earlier daemon set aside. Each declared keyring account's is its newest set: adopted, kept
    /// as unsaved, and written to the keyring by a flight of its own. A set whose account is gone is deleted.
    static func found(_ sets: [(AccountKey, TokenSet)], accounts: [Account], _ turn: inout Turn) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        for (key, tokens) in sets {
            guard let account = accounts.first(where: { $0.key == key }), account.store == .keyring else {
                t.effects.append(.dropSetAside(key))
                t.effects.append(
                    .log(LogLine(.notice, "Deleted the tokens set aside for \(key.name): no such account is declared")))
                continue
            }
            var state = turn.keepers[key] ?? AccountKeeper()
            guard state.flight == nil else { continue }
            state.tokens = tokens
            state.loaded = true
            state.unsaved = "set aside by an earlier linkrouterd; not in the keyring yet"
            state.setAside = true
            t.effects.append(
                .log(
                    LogLine(
                        .notice, "Found \(key.name)'s tokens set aside at the last stop; writing them to the keyring")))
            t = t.then(TokenFlight.writing(tokens, key, account: account, state: state, &turn))
        }
        return t
    }

    /// The keyring took the set, or the sign-in ended: a set-aside copy is deleted.
    static func taken(_ key: AccountKey, _ state: inout AccountKeeper) -> [Effect] {
        guard state.setAside else { return [] }
        state.setAside = false
        return [.dropSetAside(key)]
    }
}

extension Router {
    /// At start, before accounts are read: the sets an earlier daemon set aside (`SetAside.found`).
    public func setAsideFound(_ sets: [(AccountKey, TokenSet)], accounts: [Account], now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        return SetAside.found(sets, accounts: accounts, &turn)
    }
}
