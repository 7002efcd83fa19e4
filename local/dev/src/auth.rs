//! `make dev`'s JWT authorizer, checking tokens as API Gateway's JWT authorizer does, and the
//! local issuer whose tokens it accepts (`make token`).
//!
//! A token passes when it is three base64url parts; its header says `alg: RS256` and names a
//! `kid` of the issuer's key set; the signature verifies with that key; and its claims carry
//! `iss` = the issuer, `aud` (or, as in Cognito access tokens, `client_id`) = the audience, an
//! `exp` in the future and no `nbf` in the future. Anything else is refused before the
//! function runs, with API Gateway's answer: 401 `{"message":"Unauthorized"}`.
//!
//! The issuer's RSA key is created on first start and kept beside the data file
//! (`jwt-signing-key.der`, PKCS#8), with its public key set (`jwks.json`) for inspection.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{self, RsaKeyPair, RsaPublicKeyComponents};
use rsa::pkcs8::EncodePrivateKey;
use rsa::traits::PublicKeyParts;
use serde_json::{Map, Value, json};

pub use shared::domain::error::BoxError as Error;

/// The local issuer (`iss`) and audience (`aud`). `.invalid` names nothing on any network.
pub const LOCAL_ISSUER: &str = "https://store-local.invalid";
pub const LOCAL_AUDIENCE: &str = "store-local";
/// How long a token from `make token` lasts.
pub const TOKEN_SECONDS: i64 = 3600;

const KEY_FILE: &str = "jwt-signing-key.der";
const JWKS_FILE: &str = "jwks.json";

/// One public key of a key set.
#[derive(Debug, Clone)]
pub struct Jwk {
    pub kid: String,
    /// Modulus and exponent, big-endian.
    pub n: Vec<u8>,
    pub e: Vec<u8>,
}

impl Jwk {
    pub fn to_json(&self) -> Value {
        json!({
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": self.kid,
            "n": URL_SAFE_NO_PAD.encode(&self.n),
            "e": URL_SAFE_NO_PAD.encode(&self.e),
        })
    }
}

/// The local issuer: an RSA key that signs tokens (RS256).
pub struct Issuer {
    key_pair: RsaKeyPair,
    jwk: Jwk,
}

impl Issuer {
    /// A new 2048-bit key, in memory.
    pub fn generate() -> Result<Self, Error> {
        Self::from_pkcs8(&new_key()?)
    }

    fn from_pkcs8(der: &[u8]) -> Result<Self, Error> {
        let key_pair = RsaKeyPair::from_pkcs8(der).map_err(|e| format!("signing key: {e}"))?;
        let private = rsa::pkcs8::DecodePrivateKey::from_pkcs8_der(der)
            .map_err(|e: rsa::pkcs8::Error| format!("signing key: {e}"))?;
        let private: &rsa::RsaPrivateKey = &private;
        let n = private.n().to_bytes_be();
        let e = private.e().to_bytes_be();
        // The key's ID: a digest of its modulus, so a new key never reuses an old kid.
        let digest = ring::digest::digest(&ring::digest::SHA256, &n);
        let kid = URL_SAFE_NO_PAD.encode(&digest.as_ref()[..12]);
        Ok(Self {
            key_pair,
            jwk: Jwk { kid, n, e },
        })
    }

    /// The issuer whose key is kept in `dir`, created there on first use (with `jwks.json`).
    pub fn open(dir: &Path) -> Result<Self, Error> {
        let path = dir.join(KEY_FILE);
        let issuer = match std::fs::read(&path) {
            Ok(der) => Self::from_pkcs8(&der)?,
            Err(_) => {
                std::fs::create_dir_all(dir)?;
                let der = new_key()?;
                let issuer = Self::from_pkcs8(&der)?;
                write_private(&path, &der)?;
                issuer
            }
        };
        // Written after the key: a start killed between the two writes it on the next.
        let jwks_path = dir.join(JWKS_FILE);
        if !jwks_path.exists() {
            let jwks = json!({"keys": [issuer.jwk.to_json()]});
            local_engine::files::replace(&jwks_path, &serde_json::to_vec_pretty(&jwks)?, false)?;
        }
        Ok(issuer)
    }

    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// A token with `header` and `claims`, signed RS256 with this key (tests vary the header).
    pub fn sign(&self, header: &Value, claims: &Value) -> Result<String, Error> {
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(header)?),
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?)
        );
        let mut signature = vec![0; self.key_pair.public().modulus_len()];
        self.key_pair
            .sign(
                &signature::RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                signing_input.as_bytes(),
                &mut signature,
            )
            .map_err(|e| format!("signing: {e}"))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }

    /// The token `make token` prints: `sub` as given, in the `staff` group if `staff`, valid
    /// for [`TOKEN_SECONDS`] from `now`.
    pub fn token(&self, sub: &str, staff: bool, now: i64) -> Result<String, Error> {
        let mut claims = json!({
            "iss": LOCAL_ISSUER,
            "aud": LOCAL_AUDIENCE,
            "sub": sub,
            "iat": now,
            "nbf": now,
            "exp": now + TOKEN_SECONDS,
            "token_use": "access",
        });
        if staff {
            claims["cognito:groups"] = json!([shared::domain::access::STAFF_GROUP]);
        }
        self.sign(&self.header(), &claims)
    }

    /// The header of this issuer's tokens.
    pub fn header(&self) -> Value {
        json!({"alg": "RS256", "typ": "JWT", "kid": self.jwk.kid})
    }

    /// What verifies this issuer's tokens.
    pub fn verifier(&self) -> Verifier {
        Verifier {
            keys: vec![self.jwk.clone()],
            issuer: LOCAL_ISSUER.to_owned(),
            audience: LOCAL_AUDIENCE.to_owned(),
        }
    }
}

/// A new 2048-bit RSA key, PKCS#8 DER.
fn new_key() -> Result<Vec<u8>, Error> {
    let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048)?;
    Ok(key.to_pkcs8_der()?.as_bytes().to_vec())
}

/// A secret (the private key, the webhook's secret), readable by its owner only, written whole
/// or not at all.
pub(crate) fn write_private(path: &Path, der: &[u8]) -> Result<(), Error> {
    Ok(local_engine::files::replace(path, der, true)?)
}

/// Why a token was refused (logged; the client is told only "Unauthorized").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused(pub &'static str);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Checks bearer tokens as API Gateway's JWT authorizer does.
#[derive(Debug, Clone)]
pub struct Verifier {
    pub keys: Vec<Jwk>,
    pub issuer: String,
    pub audience: String,
}

fn decode_part(part: &str) -> Result<Vec<u8>, Refused> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| Refused("a part is not base64url"))
}

fn json_object(bytes: &[u8], what: &'static str) -> Result<Map<String, Value>, Refused> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Refused(what)),
    }
}

impl Verifier {
    /// The claims of the token in `authorization` (`Bearer <token>`, or the bare token, as API
    /// Gateway takes either), if it passes at `now` (seconds since the epoch).
    pub fn verify(
        &self,
        authorization: Option<&str>,
        now: i64,
    ) -> Result<Map<String, Value>, Refused> {
        let raw = authorization
            .ok_or(Refused("no Authorization header"))?
            .trim();
        let token = match raw.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            Some(_) => return Err(Refused("not a bearer token")),
            None => raw,
        };
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Refused("not three parts"));
        };
        let head = json_object(&decode_part(header)?, "the header is not a JSON object")?;
        // Only RS256: `none`, and HMAC with the public key as its secret, never verify.
        if head.get("alg").and_then(Value::as_str) != Some("RS256") {
            return Err(Refused("alg is not RS256"));
        }
        let kid = head
            .get("kid")
            .and_then(Value::as_str)
            .ok_or(Refused("no kid"))?;
        let key = self
            .keys
            .iter()
            .find(|k| k.kid == kid)
            .ok_or(Refused("unknown kid"))?;
        let signing_input = &token[..header.len() + 1 + payload.len()];
        RsaPublicKeyComponents {
            n: &key.n,
            e: &key.e,
        }
        .verify(
            &signature::RSA_PKCS1_2048_8192_SHA256,
            signing_input.as_bytes(),
            &decode_part(signature)?,
        )
        .map_err(|_| Refused("bad signature"))?;

        let mut claims = json_object(&decode_part(payload)?, "the claims are not a JSON object")?;
        self.check_claims(&claims, now)?;
        // A claim whose value is JSON null is not passed on: `"sub": null` is no subject,
        // never a caller named "null".
        claims.retain(|_, value| !value.is_null());
        Ok(claims)
    }

    /// The claims API Gateway checks: issuer, audience, and the token's times at `now`.
    fn check_claims(&self, claims: &Map<String, Value>, now: i64) -> Result<(), Refused> {
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(Refused("wrong issuer"));
        }
        // API Gateway checks `aud` when the token has one, and only then `client_id`: a
        // client_id that matches does not make up for an `aud` that does not.
        let audience = |name: &str| match claims.get(name) {
            Some(Value::String(one)) => one == &self.audience,
            Some(Value::Array(many)) => many.iter().any(|a| a.as_str() == Some(&self.audience)),
            _ => false,
        };
        let checked = if claims.contains_key("aud") {
            "aud"
        } else {
            "client_id"
        };
        if !audience(checked) {
            return Err(Refused("wrong audience"));
        }
        let time = |name: &str| claims.get(name).and_then(Value::as_i64);
        match time("exp") {
            Some(exp) if exp > now => {}
            Some(_) => return Err(Refused("expired")),
            None => return Err(Refused("no exp")),
        }
        if claims.contains_key("nbf") && time("nbf").is_none_or(|nbf| nbf > now) {
            return Err(Refused("not yet valid"));
        }
        if claims.contains_key("iat") && time("iat").is_none_or(|iat| iat > now) {
            return Err(Refused("issued in the future"));
        }
        Ok(())
    }
}
