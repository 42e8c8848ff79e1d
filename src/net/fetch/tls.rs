//! The rustls client configuration: the webpki roots (plus any extra roots
//! the embedder adds), ring as the crypto provider, HTTP/1.1 by ALPN, and
//! session resumption off, so no TLS state is shared between fetches.

use super::code::FetchCode;
use super::error::FetchError;
use rustls::client::Resumption;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use std::sync::Arc;

/// A client configuration trusting the webpki roots and `extra_roots`.
pub(crate) fn client_config(
    extra_roots: &[CertificateDer<'static>],
) -> Result<Arc<ClientConfig>, FetchError> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for r in extra_roots {
        roots.add(r.clone()).map_err(|e| {
            FetchError::failed(FetchCode::Config, format!("an extra root is unusable: {e}"))
        })?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| FetchError::failed(FetchCode::Config, format!("TLS setup: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.resumption = Resumption::disabled();
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(cfg))
}
