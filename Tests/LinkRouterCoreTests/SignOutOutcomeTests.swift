import Testing

@testable import LinkRouterCore

/// What linkctl says after a sign-out, from what the daemon answered: `--at-provider` is offered only where the
/// provider has an end-session endpoint for it to use (issue 47).
@Suite("Sign-out outcome: the words after \"Signed out here\"")
struct SignOutOutcomeTests {
    @Test(
        "each outcome survives its trip through the answer's entries; --at-provider is named only when the provider's metadata has an end_session_endpoint"
    )
    func atProviderOnlyWhereOffered() {
        let outcomes: [SignOutOutcome] = [
            .revoked(hint: "refresh_token"), .notOffered(endSession: true), .notOffered(endSession: false),
            .failed("HTTP 401", endSession: true), .failed("HTTP 401", endSession: false), .nothingHeld,
        ]
        for outcome in outcomes {
            let entries = Dictionary(uniqueKeysWithValues: outcome.entries)
            #expect(SignOutOutcome(entries: entries) == outcome, "\(outcome)")
            let offered: Bool
            switch outcome {
            case .notOffered(let e), .failed(_, let e): offered = e
            case .revoked, .nothingHeld: offered = false
            }
            #expect(outcome.sentence.contains("--at-provider") == offered, "\(outcome): \(outcome.sentence)")
        }
        #expect(SignOutOutcome.notOffered(endSession: false).sentence.contains("no sign-out page either"))
    }
}
