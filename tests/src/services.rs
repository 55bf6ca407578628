//! Real services the scale-out tests run against: Redis and nginx, from Debian's packages,
//! installed when missing (CI runs as root) and started on loopback ports of their own, each
//! in a directory of its own, stopped when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Makes sure `binary` exists, installing Debian's `package` when it does not; fails loudly
/// with what to install when that is not possible.
pub fn ensure_installed(binary: &str, package: &str) -> PathBuf {
    // Two tests of one process must not run apt at once.
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = find_binary(binary) {
        return found;
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", package])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    let installed = install()
        || (Command::new("apt-get").arg("update").stdout(Stdio::null()).status().is_ok_and(|s| s.success())
            && install());
    assert!(installed, "`{binary}` is missing and `apt-get install {package}` failed: install `{package}` (as root)");
    find_binary(binary).unwrap_or_else(|| panic!("`{package}` is installed but `{binary}` is not on the PATH"))
}

/// A process a test started, killed and reaped when dropped: a failed assertion never leaves
/// a service or a server running.
#[derive(Debug)]
pub struct KillOnDrop(pub Child);

impl KillOnDrop {
    /// Kills the process now and waits for it to exit.
    pub fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.stop();
    }
}

fn find_binary(binary: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(binary))
        .find(|candidate| candidate.is_file())
}

/// A loopback port nobody listens on (now).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Waits up to `limit` until something accepts connections on `port`.
pub fn wait_for_port(child: &mut Child, port: u16, what: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        // Another process on the port would answer for a child that died: the child is asked.
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited ({status}) before listening on port {port}");
        }
        assert!(Instant::now() < deadline, "{what} did not start listening on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Ok(Some(status)) = child.try_wait() {
        panic!("{what} exited ({status}); something else listens on port {port}");
    }
}

/// The standard error of a child, read as it comes by a thread of its own (a child that
/// writes more than a pipe holds never blocks on it), its last 64 KiB kept to show when a
/// test fails.
#[derive(Debug, Clone, Default)]
pub struct StderrLog(Arc<Mutex<Vec<u8>>>);

/// How much of a child's standard error a [`StderrLog`] keeps.
const KEPT_LOG: usize = 64 * 1024;

impl StderrLog {
    /// Reads `child`'s piped standard error from now on (nothing when it is not piped).
    pub fn drain(child: &mut Child) -> StderrLog {
        let log = StderrLog::default();
        if let Some(mut stderr) = child.stderr.take() {
            let kept = Arc::clone(&log.0);
            std::thread::spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(n @ 1..) = stderr.read(&mut chunk) {
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend_from_slice(&chunk[..n]);
                    let over = kept.len().saturating_sub(KEPT_LOG);
                    kept.drain(..over);
                }
            });
        }
        log
    }

    /// What was read so far (the last 64 KiB), as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

/// A directory under the target directory for one service's files, emptied first.
/// A fresh directory of this process's own under `<target>/services`, named after `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = crate::target_dir().join("services").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// A Redis server of its own, stopped when dropped. It keeps nothing on disk unless started
/// [`durable`](Redis::durable), which can then be stopped and started again with its data.
#[derive(Debug)]
pub struct Redis {
    _process: KillOnDrop,
    /// Its `redis://` URL.
    pub url: String,
    /// Its port.
    pub port: u16,
    /// Its directory, and whether it writes every change to its append-only file.
    dir: PathBuf,
    durable: bool,
}

impl Redis {
    /// Starts one on a free loopback port and waits until it answers `PING`.
    pub fn start() -> Redis {
        Redis::start_with(false)
    }

    /// Starts one that writes every change to disk before answering (`appendfsync always`), so
    /// that [`restart`](Redis::restart) loses nothing.
    pub fn durable() -> Redis {
        Redis::start_with(true)
    }

    fn start_with(durable: bool) -> Redis {
        let port = free_port();
        let dir = scratch(&format!("redis-{port}"));
        let child = Redis::spawn(port, &dir, durable);
        let redis =
            Redis { _process: KillOnDrop(child), url: format!("redis://127.0.0.1:{port}/"), port, dir, durable };
        redis.wait_for_ping();
        redis
    }

    fn spawn(port: u16, dir: &Path, durable: bool) -> Child {
        let binary = ensure_installed("redis-server", "redis-server");
        let persistence: &[&str] =
            if durable { &["--appendonly", "yes", "--appendfsync", "always"] } else { &["--appendonly", "no"] };
        Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .args(persistence)
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts")
    }

    fn wait_for_ping(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while !self.answers_ping() {
            assert!(Instant::now() < deadline, "redis-server did not answer PING on port {}", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops it (SIGKILL: a crash), waits until its port refuses connections, runs `meanwhile`
    /// while it is down, and starts it again on the same port and directory (a durable one with
    /// its data).
    pub fn restart(&mut self, meanwhile: impl FnOnce()) {
        self._process.stop();
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(Instant::now() < deadline, "redis-server still listens after it was killed");
            std::thread::sleep(Duration::from_millis(10));
        }
        meanwhile();
        self._process = KillOnDrop(Redis::spawn(self.port, &self.dir, self.durable));
        self.wait_for_ping();
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self._process.0.id()
    }

    /// Sends one command on a connection of its own: its answer's first line (a simple
    /// string, an error or an integer) or, for a bulk string, its text.
    pub fn command(&self, args: &[&str]) -> String {
        use std::io::BufRead as _;
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("Redis accepts a connection");
        stream.write_all(request.as_bytes()).expect("the command is sent");
        let mut reader = std::io::BufReader::new(stream);
        let mut first = String::new();
        reader.read_line(&mut first).expect("an answer");
        let first = first.trim_end();
        match first.strip_prefix('$').map(str::parse::<i64>) {
            Some(Ok(len)) if len >= 0 => {
                let mut text = vec![0u8; len as usize + 2];
                reader.read_exact(&mut text).expect("the answer's text");
                String::from_utf8_lossy(&text[..len as usize]).into_owned()
            }
            _ => first.to_owned(),
        }
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let mut answer = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
    }
}

/// An nginx of its own (not a daemon, its own prefix and logs), stopped when dropped.
#[derive(Debug)]
pub struct Nginx {
    _process: KillOnDrop,
    _log: StderrLog,
    /// Where it runs: its configuration, logs and temporary files.
    pub dir: PathBuf,
    /// The port it listens on.
    pub port: u16,
}

impl Nginx {
    /// Starts nginx with `config` (a file of the repository's `deploy/` directory, written for
    /// port 8080 in front of 8081, 8082 and 8083) in its `http` block, on a free port in front
    /// of `upstreams` instead.
    pub fn start(config: &Path, upstreams: &[u16]) -> Nginx {
        let binary = ensure_installed("nginx", "nginx");
        let port = free_port();
        let dir = scratch(&format!("nginx-{port}"));
        let mut http = std::fs::read_to_string(config).unwrap_or_else(|e| panic!("{}: {e}", config.display()));
        http = http.replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
        for (n, upstream) in upstreams.iter().enumerate() {
            http = http.replace(&format!("127.0.0.1:{}", 8081 + n), &format!("127.0.0.1:{upstream}"));
        }
        let main = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {dir}/nginx.pid;\n\
             error_log {dir}/error.log warn;\nevents {{ worker_connections 1024; }}\n\
             http {{\n    access_log off;\n    client_body_temp_path {dir}/body;\n    proxy_temp_path {dir}/proxy;\n\
             fastcgi_temp_path {dir}/fastcgi;\n    uwsgi_temp_path {dir}/uwsgi;\n    scgi_temp_path {dir}/scgi;\n\
             {http}\n}}\n",
            dir = dir.display()
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, main).expect("the nginx configuration is written");
        let child = Command::new(binary)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let mut child = child;
        let log = StderrLog::drain(&mut child);
        wait_for_port(&mut child, port, "nginx", Duration::from_secs(15));
        Nginx { _process: KillOnDrop(child), _log: log, dir, port }
    }

    /// Its `/mcp` URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Its process id (it runs as one process: no master, one worker).
    pub fn pid(&self) -> u32 {
        self._process.0.id()
    }
}

/// A certificate authority and a server certificate for `127.0.0.1` it signed, made with
/// `openssl` (Debian's, installed when missing) in `dir`: the CA's certificate (what a client
/// trusts, through `SSL_CERT_FILE`), then the server's certificate and key.
pub fn tls_files(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = ensure_installed("openssl", "openssl");
    let run = |args: &[&str]| {
        let output = Command::new(&openssl).args(args).current_dir(dir).output().expect("openssl runs");
        assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    run(&["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2"]
        .into_iter()
        .chain(["-subj", "/CN=mcp-tests CA"])
        .collect::<Vec<_>>());
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .expect("the extensions are written");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"))
}
