/// Whether a login uses a protocol feature the provider may offer: `auto`
/// when its metadata says it does (the default), `require` always (where
/// and how a provider without it fails is the feature's: PAR before the
/// browser opens, DPoP at the token answer), `off` never. An account's `par`
/// (RFC 9126, `PushedAuthorization.endpoint`) and `dpop` (RFC 9449,
/// `DPoPBinding.decide`) are both this; each decides what its modes mean.
public enum FeatureMode: String, Sendable, CaseIterable {
    case auto, require, off

    /// The option `name`'s text; nil is `auto`.
    public init(option: String?, name: String) throws(RouterError) {
        guard let option else {
            self = .auto
            return
        }
        guard let mode = FeatureMode(rawValue: option) else {
            throw .invalid("\(name) \"\(PercentEncoding.preview(Substring(option)))\" is not one of auto, require, off")
        }
        self = mode
    }
}
