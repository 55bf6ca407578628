//! The command's credentials against the notes example behind a real OpenID provider
//! (`tests/clients/oidc`): refused without any; a bearer token given with `--bearer` or as a
//! `--header`; tokens obtained by the client itself with `--oauth-client-id` and
//! `--oauth-client-secret` (client credentials), stepping up to a writer's scope when the
//! provider grants it and failing when it does not.

use mcp_tests::clients::openid_provider;
use mcp_tests::example_binary;
use mcp_tests::http::HttpServer;

use super::mcp;

#[test]
fn credentials_are_given_or_obtained_as_the_command_line_says() {
    let provider = openid_provider();
    let notes = HttpServer::start(&example_binary("notes"), &["--oauth-issuer", &provider.issuer]);
    let url = notes.url.as_str();
    for era in ["auto", "handshake"] {
        let search = ["call", "--era", era, url, "search", "word=kite"];
        let ran = mcp(&search);
        assert_eq!(ran.code(), Some(1), "{ran:#?}");
        assert!(ran.stderr.contains("401") || ran.stderr.to_lowercase().contains("unauthorized"), "{ran:#?}");

        let token = provider.token(("notes-reader", "reader-secret"), "notes:read", url).expect("a token");
        let token = token["access_token"].as_str().expect("an access token");
        let ran = mcp(&[&search[..], &["--bearer", token]].concat());
        assert!(ran.status.success(), "{ran:#?}");
        assert!(ran.stdout.contains("\"titles\""), "{ran:#?}");
        let header = format!("Authorization: Bearer {token}");
        let ran = mcp(&[&search[..], &["--header", &header]].concat());
        assert!(ran.status.success(), "{ran:#?}");

        let reader = [
            "--oauth-client-id",
            "notes-reader",
            "--oauth-client-secret",
            "reader-secret",
            "--oauth-scope",
            "notes:read",
        ];
        let ran = mcp(&[&search[..], &reader].concat());
        assert!(ran.status.success(), "{ran:#?}");
        let write = ["call", "--era", era, url, "write_note", "title=kite", "text=A red kite"];
        let ran = mcp(&[&write[..], &reader].concat());
        assert_eq!(ran.code(), Some(1), "the reader is not granted notes:write: {ran:#?}");
        let agent = ["--oauth-client-id", "notes-agent", "--oauth-client-secret", "agent-secret"];
        let ran = mcp(&[&write[..], &agent].concat());
        assert!(ran.status.success(), "{ran:#?}");
        assert!(ran.stdout.contains("\"kite\""), "{ran:#?}");
        if era == "handshake" {
            assert!(ran.stderr.contains("[info] notes:"), "the server's log message is shown: {ran:#?}");
        }
    }
}
