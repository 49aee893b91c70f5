/// A `GetToken` (or `SignProof`) held until its account's flight lands: what
/// the caller asked for, so the flight's end answers each waiter by its own
/// needs.
public struct TokenWait: Sendable, Equatable {
    public let key: AccountKey
    /// The bus name whose call this is.
    public let caller: String
    public let kind: Account.TokenKind
    /// Seconds of life the token must have left.
    public let minValid: Int64
    /// `SignProof`: a proof for the access token rides along.
    public let proof: ProofRequest?
    /// The caller signs the person in itself when the account is not signed in (`interactive`: linkctl's
    /// `--interactive`, kubectl's interactive exec): its terminal is the face, so no desktop notice is posted for it.
    public let interactive: Bool
    /// The narrower token asked for (the empty target: the account's own).
    public let target: TokenTarget
    /// The account's declaration as the call found it: a flight the call waits on that began without one (a keyring
    /// read after `CollectionChanged`, a write) refreshes with it, rather than refusing a refresh it cannot make.
    public let account: Account?
    /// A step-up (`acr_values`, `max_age`): the token only from a sign-in that meets it.
    public let stepUp: StepUp?

    public init(
        _ key: AccountKey, caller: String, kind: Account.TokenKind, minValid: Int64, proof: ProofRequest?,
        interactive: Bool = false, target: TokenTarget = TokenTarget(), account: Account? = nil,
        stepUp: StepUp? = nil
    ) {
        self.stepUp = stepUp
        self.target = target
        self.account = account
        self.key = key
        self.caller = caller
        self.kind = kind
        self.minValid = minValid
        self.proof = proof
        self.interactive = interactive
    }
}
