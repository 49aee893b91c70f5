/// Published and generated JWS test vectors, with the public JWKs that verify them.
enum JOSEVectors {
    /// RFC 7515 Appendix A.2: RS256 over the A.1 payload.
    static let rs256Token =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let rs256N =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rs256JWK = #"{"kty":"RSA","n":"\#(rs256N)","e":"AQAB"}"#
    /// RFC 7515 A.1's payload (with its CR LFs), shared by A.2 and A.3.
    static let a1Payload = "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}"

    /// RFC 7515 Appendix A.3: ES256 over the A.1 payload.
    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let es256X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let es256Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let es256JWK = #"{"kty":"EC","crv":"P-256","x":"\#(es256X)","y":"\#(es256Y)"}"#
    /// RFC 7515 A.3's private scalar, to show that a JWK carrying it is refused.
    static let es256D = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"

    /// RFC 8037 Appendix A.4: EdDSA (Ed25519) over "Example of Ed25519 signing", key from A.2.
    static let edDSAToken =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
    static let edDSAJWK = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#

    /// PS256, made once with OpenSSL 3.0.19's CLI (no published vector
    /// exists, and PSS is randomized, so it is recorded, not recomputed):
    ///
    ///     b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
    ///     openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ps256.pem
    ///     header=$(printf '%s' '{"alg":"PS256","kid":"ps256-test"}' | b64url)
    ///     payload=$(printf '%s'
    /// '{"iss":"https://issuer.example","sub":"248289761001","aud":"linkrouter","nonce":"n-0S6_WzA2Mj","exp":1311281970,"iat":1311280970}'
    /// | b64url)
    ///     sig=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign ps256.pem \
    ///           -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sigopt rsa_mgf1_md:sha256 | b64url)
    ///     echo "$header.$payload.$sig"
    ///     openssl rsa -in ps256.pem -noout -modulus | cut -d= -f2 | xxd -r -p | b64url   # n
    ///
    /// (`openssl dgst -verify` with the same -sigopt flags accepted it; the
    /// private key was then deleted.)
    static let ps256Token =
        "eyJhbGciOiJQUzI1NiIsImtpZCI6InBzMjU2LXRlc3QifQ.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiMjQ4Mjg5NzYxMDAxIiwiYXVkIjoibGlua3JvdXRlciIsIm5vbmNlIjoibi0wUzZfV3pBMk1qIiwiZXhwIjoxMzExMjgxOTcwLCJpYXQiOjEzMTEyODA5NzB9.MT8xsEFR3bXzyFtnuIRAh6_Dat6tsISvwmixi43a3vfmSfP59JE964tzJbT5gDGvzvb3yGCYRLGXsjHKwhmzEQMlTzViXkvHxogB1aMErScpfG8qcrjLG-4Nx763echxIoshCmsGhBzIGioa8LJ5xZV12geKoB_R44pwt5OKHHtIe6Nmv-uM4kqNt_iDS2ZiFjfnZi0V5Z5n4OE-N8v6phwYIzmj0swlwSMhxOeYoAjkKyAHIxsXvJGckdnimByqdi9XHcT7zN9P03d3ztnDNBTxRmV_LavKBCyV2SWTbo4AOdZe0Kvk-dbuuVWis7pcLgVoPVzQU8jPXwIal1ZkwQ"
    static let ps256N =
        "sI4ND4cB4UUgcX1FP5su9eaYDLzOBRkddntq8WPtOOVGKDgclh3CBjPUYGD9ZzDFwnxsLzTVMyyRLwcQO_kmeESMGzhaN3BviYEvDz7ZF1HufqLlC9EqtK7zygweZPoPYBmsEpiWV8mcVaLPUw3TC7nb4qkvLj51ZCVeidmUI6D4y1Bd5nw5DTN2o-ZhaDZARzTYZP-L2NqFcMJThmC9RPhSvBi7LjM3DNfbDds2nE-9-RbSt--SMFfgxpLx0nST0Cs7v2qJOIHGipOix5JdjvPIFbKned2v7n4EIS2SxhTxYLlAXc3KuuVmskk1FfhQwiz2JPY16AqxL_G9O-yERw"
    /// The same PS256 signing input signed with parameters RFC 7518 §3.5
    /// does not allow, by the commands above with `-sigopt rsa_pss_saltlen:64`
    /// and with `-sigopt rsa_mgf1_md:sha1`. OpenSSL's verifier would accept
    /// the first by default (it detects the salt length), so it shows the
    /// salt length is pinned.
    static let ps256Salt64Signature =
        "H5qnNzKGtCTecAVrqI6z17DTjbtAJHf39ciUHy_u6pffdRkDvYC_t5JOf0t-FszGMNCjSXkNffadib29hsD0cWpNX6V2Re-iv9vSFkzkofr1wE7FH5klrfEEen0WiSah50hPcsbyaWGr0VJ-yU7YBTsZVNT7j15s7yHR8WaWcChQmN90JPlDs1o9im-bN1bmTSxzV1UDu11ew0o3nGI5-lcwkLvHbqxRV993-lhYOeWuotxjlmglBdiXKU31X_J_yo1uZXkyAxkWb2HUH1Zta7FEAiVYhoSYmyKeSYShiEuZ5Oh4K429Bfs0G5WLv7pDqcFTwHSBh4360SkYrKLEzg"
    static let ps256MGF1SHA1Signature =
        "asT6wQQnvlq3YIeFVmtnlKblwy2jUQBoEpUSCeC_R25cLMbW4S68ympZVaFk8_aVgELtLyHxjDZcK45fMInGvnCbxpaXo8uGy6fuQyox1wIZoRY_oLXVOU4qBjFqjSudKr_-WFP6t0_OrKv75N3IZ8iU4-3bGViAtBd3bQETpXPJbhXnoxYtSeJgoKWijkvEpOaAW2NZ-oiF4o20eYbZkyI5inWRf5yNbAvRULvgPJICp_5X1n4vjmSKuIonmh-MkuUUgD78tqZG30ZiMSicgJjz9AJsyAqTRhFLE_vohUUE__MKJGp6QLtkw0DKchxWLpAyLx97JAKKQSvTbun4cQ"
    static let ps256JWK = #"{"kty":"RSA","kid":"ps256-test","use":"sig","alg":"PS256","n":"\#(ps256N)","e":"AQAB"}"#

    /// Unrelated public keys of each type, for "the wrong key fails"; made with
    /// `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256` and
    /// `openssl genpkey -algorithm ED25519` (the last 64 and 32 bytes of
    /// `openssl pkey -pubout -outform DER`), private halves deleted.
    static let otherP256JWK =
        #"{"kty":"EC","crv":"P-256","x":"RYOEZBxxTWx_gYmZGHYJuv2znlANKG7xoXydiPfJHfc","y":"CKJQ1c0rCPSNDSppeszqv1ZOcyKcuvPn_ycWbkEdJJ0"}"#
    static let otherEd25519JWK = #"{"kty":"OKP","crv":"Ed25519","x":"Mo5-agLxQHP9d55EcA0QOJ7ehQB7wVMnmgcwJAfTKfY"}"#
}
