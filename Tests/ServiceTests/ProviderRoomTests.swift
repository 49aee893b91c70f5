import Glibc
import LinkRouterCore
import SystemKit
import Testing

@testable import LinkRouterService

/// The providers component keeps room for accounts (issue 34): requests any
/// bus client can cause (`RefreshTokens`, a begin's discovery) stop short of
/// the in-flight limit, so accounts' refreshes and revocations still go out
/// when a flood of them stalls at a provider; and the limit is the whole of
/// it, for accounts too.
@Suite("Providers: room kept for accounts")
struct ProviderRoomTests {
    /// A TCP listener on 127.0.0.1 that never accepts: every request sent to it stays in flight.
    final class Stalled {
        let fd: Int32
        let port: Int
        init() throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = fd
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard fd >= 0, ok else { throw SystemError("a listener on 127.0.0.1") }
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        deinit { close(fd) }
    }

    @Test(
        "callers with no account fill their share and are refused LimitsExceeded; an account's refresh still goes out; accounts stop at the whole limit"
    )
    func roomForAccounts() throws {
        let stalled = try Stalled()
        let providers = Providers(loop: EventLoop())
        let endpoint = "http://127.0.0.1:\(stalled.port)/token"
        let grant = TokenGrant(
            tokenEndpoint: endpoint, jwksURI: "http://127.0.0.1:\(stalled.port)/jwks",
            expected: IDTokenClaims.Expected(issuer: "http://127.0.0.1:\(stalled.port)", clientID: "c", nonce: nil),
            requiresIDToken: false, dpop: nil)
        var answered: [SessionFailure?] = []
        func refresh(_ room: Providers.Room) -> Int {
            let index = answered.count
            answered.append(nil)
            providers.refresh(grant, refreshToken: "r", form: [], room: room) { result in
                if case .failure(let f) = result { answered[index] = f }
            }
            return index
        }
        let share = Providers.maxInFlight - Providers.reservedForAccounts
        #expect(share > 0 && Providers.reservedForAccounts > 0)
        for _ in 0..<share { _ = refresh(.anyCaller) }
        #expect(answered.allSatisfy { $0 == nil }, "the callers' share went out")
        let over = refresh(.anyCaller)
        #expect(answered[over]?.code == .limitsExceeded, "\(String(describing: answered[over]))")
        // The accounts' room: every one of them goes out.
        var accounts: [Int] = []
        for _ in 0..<Providers.reservedForAccounts { accounts.append(refresh(.account)) }
        #expect(accounts.allSatisfy { answered[$0] == nil }, "an account's refresh was refused")
        // The whole limit holds for accounts too.
        let full = refresh(.account)
        #expect(answered[full]?.code == .limitsExceeded)
    }
}
