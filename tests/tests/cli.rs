//! The `mcp` command against real processes: `inspect`, `call`, `read`, `get` and `complete`
//! against GiftGen and other examples over stdio and Streamable HTTP in both eras; the
//! doctor against servers that each make one mistake, against every example and against the
//! TypeScript and Python SDK servers; `new` and `dev` on scratch crates.

#[path = "support/oauth_servers.rs"]
mod oauth_servers;

mod cli {
    mod authorization;
    mod calls;
    mod dev;
    mod doctor;
    mod inspect;
    mod new;

    use std::io::Write;
    use std::process::{Command, ExitStatus, Stdio};
    use std::time::Duration;

    use mcp_tests::clients::run_bounded;
    use mcp_tests::mcp_binary;

    /// What one run of `mcp` did.
    #[derive(Debug)]
    pub(crate) struct Ran {
        pub(crate) status: ExitStatus,
        pub(crate) stdout: String,
        pub(crate) stderr: String,
    }

    impl Ran {
        /// Its standard output, read as JSON.
        pub(crate) fn json(&self) -> serde_json::Value {
            serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {self:#?}"))
        }

        pub(crate) fn code(&self) -> Option<i32> {
            self.status.code()
        }
    }

    /// Runs `mcp args...` to its end (bounded), with no input.
    pub(crate) fn mcp(args: &[&str]) -> Ran {
        let mut command = Command::new(mcp_binary());
        command.args(args).env("NO_COLOR", "1");
        let (status, stdout, stderr) = run_bounded(command, Duration::from_secs(240));
        Ran { status, stdout, stderr }
    }

    /// Runs `mcp args...` with `input` on its standard input.
    pub(crate) fn mcp_with_input(args: &[&str], input: &str) -> Ran {
        let mut child = Command::new(mcp_binary())
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp starts");
        child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("input written");
        let pid = child.id();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(child.wait_with_output());
        });
        let output = match finished.recv_timeout(Duration::from_secs(120)) {
            Ok(output) => output.expect("mcp ran"),
            Err(_) => {
                let _ = Command::new("kill").arg(pid.to_string()).status();
                panic!("`mcp {}` did not end in 120 s", args.join(" "));
            }
        };
        Ran {
            status: output.status,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// `program`'s path as an argument.
    pub(crate) fn arg(path: &std::path::Path) -> String {
        path.to_str().expect("a UTF-8 path").to_owned()
    }
}
