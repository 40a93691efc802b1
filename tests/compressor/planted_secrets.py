"""A planted set of realistic, format-valid (fake) secrets and of look-alikes that must stay.

Every secret is generated from a fixed seed, in the context users paste it in (an env
file, a curl line, a JSON tool argument, a YAML config...). ``split()`` shuffles the set
with a fixed seed into a dev half (the one redaction rules were written against) and a
test half (only scored). Each :class:`Planted` names the exact strings that must not
survive redaction; each :class:`LookAlike` the strings that must.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

SEED = 20261201
SPLIT_SEED = 7

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"


@dataclass(frozen=True)
class Planted:
    kind: str
    text: str  # the secret in its usual context
    secrets: tuple[str, ...]  # substrings that must not reach a summarizer


@dataclass(frozen=True)
class LookAlike:
    kind: str
    text: str
    keep: tuple[str, ...]  # substrings that must survive redaction


def _r(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _hex(rng: random.Random, n: int) -> str:
    return _r(rng, n, "0123456789abcdef")


def _pem_body(rng: random.Random, lines: int = 12) -> str:
    return "\n".join("MII" + _r(rng, 61, _B64) if i == 0 else _r(rng, 64, _B64) for i in range(lines))


def _pem(rng: random.Random, label: str) -> tuple[str, str]:
    body = _pem_body(rng)
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body


def _chunks(body: str) -> tuple[str, ...]:
    """Distinctive pieces of a key body: any of them surviving is a leak."""
    lines = [ln for ln in body.splitlines() if len(ln) >= 24]
    return tuple(ln[4:28] for ln in lines[:: max(1, len(lines) // 4)])


def _gcp_service_account(rng: random.Random) -> tuple[dict[str, str], str, str]:
    key, body = _pem(rng, "PRIVATE KEY")
    key_id = _hex(rng, 40)
    doc = {"type": "service_account", "project_id": "spotter-prod-4411", "private_key_id": key_id,
           "private_key": key + "\n", "client_email": "ci-bot@spotter-prod-4411.iam.gserviceaccount.com",
           "client_id": "1034" + _r(rng, 17, string.digits), "token_uri": "https://oauth2.googleapis.com/token"}
    return doc, body, key_id


def planted(seed: int = SEED) -> list[Planted]:
    rng = random.Random(seed)
    out: list[Planted] = []

    def add(kind: str, text: str, *secrets: str) -> None:
        out.append(Planted(kind, text, tuple(secrets)))

    # cloud keys
    for _ in range(2):
        akid, secret = "AKIA" + _r(rng, 16, string.ascii_uppercase + string.digits), _r(rng, 40, _B64)
        add("aws-keys", f"[default]\naws_access_key_id = {akid}\naws_secret_access_key = {secret}\n", akid, secret)
    add("aws-env", f"export AWS_SECRET_ACCESS_KEY={(s := _r(rng, 40, _B64))}", s)
    add("aws-session", f"AWS_SESSION_TOKEN=IQoJb3JpZ2luX2Vj{(s := _r(rng, 120, _B64))}", s)
    for _ in range(2):
        k = _r(rng, 86, _B64) + "=="
        add("azure-conn", f"DefaultEndpointsProtocol=https;AccountName=spotterlogs;AccountKey={k};"
                          "EndpointSuffix=core.windows.net", k[:40], k[40:80])
    add("azure-sas", f"https://spotterlogs.blob.core.windows.net/c/x.log?sv=2022-11-02&sp=r&sig="
                     f"{(s := _r(rng, 43, _ALNUM) + '%3D')}", s[:40])
    doc, body, key_id = _gcp_service_account(rng)
    add("gcp-sa-json", json.dumps(doc, indent=2), key_id, *_chunks(body))
    doc, body, key_id = _gcp_service_account(rng)
    escaped = json.dumps({"command": f"cat > sa.json <<'EOF'\n{json.dumps(doc)}\nEOF"})
    add("gcp-sa-json-escaped", escaped, key_id, *_chunks(body))
    add("gcp-api-key", f"GOOGLE_MAPS_KEY: AIza{(s := _r(rng, 35, _ALNUM + '-_'))}", s)
    # private key blocks, whole and cut
    for label in ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"):
        key, body = _pem(rng, label)
        add(f"pem-{label.split()[0].lower()}", f"here is the key:\n{key}\nuse it", *_chunks(body))
    key, body = _pem(rng, "PGP PRIVATE KEY BLOCK")
    add("pgp-private", f"gpg --export-secret-keys:\n{key}", *_chunks(body))
    key, body = _pem(rng, "PGP PRIVATE KEY BLOCK")
    add("pgp-private-cut", key[: len(key) // 2], *_chunks(body[: len(body) // 2 - 40]))
    key, body = _pem(rng, "OPENSSH PRIVATE KEY")
    add("openssh-cut", "cat ~/.ssh/id_ed25519\n" + key[: len(key) * 2 // 3], *_chunks(body[: len(body) // 2]))
    key, body = _pem(rng, "RSA PRIVATE KEY")
    add("pem-tail-only", key[len(key) // 2:], *_chunks(body[len(body) // 2 + 70:]))
    # SaaS tokens
    add("slack-webhook", f"SLACK_URL=https://hooks.slack.com/services/T0{_r(rng, 8, string.ascii_uppercase)}/"
                         f"B0{_r(rng, 8, string.ascii_uppercase)}/{(s := _r(rng, 24))}", s)
    add("slack-webhook-prose", f"post to https://hooks.slack.com/services/T{_r(rng, 10).upper()}/"
                               f"B{_r(rng, 10).upper()}/{(s := _r(rng, 24))} when done", s)
    add("slack-bot", f"token xoxb-{_r(rng, 12, string.digits)}-{_r(rng, 13, string.digits)}-{(s := _r(rng, 24))}", s)
    add("stripe-restricted", f"STRIPE_KEY=rk_live_{(s := _r(rng, 99))}", s)
    add("stripe-secret", f"stripe.api_key = 'sk_live_{(s := _r(rng, 24))}'", s)
    add("stripe-webhook", f"endpoint secret whsec_{(s := _r(rng, 32))}", s)
    add("digitalocean", f"doctl auth init -t dop_v1_{(s := _hex(rng, 64))}", s)
    add("digitalocean-oauth", f"DO token: doo_v1_{(s := _hex(rng, 64))}", s)
    add("sendgrid", f"SENDGRID=SG.{_r(rng, 22, _ALNUM + '-_')}.{(s := _r(rng, 43, _ALNUM + '-_'))}", s)
    add("sendgrid-prose", f"the mail key is SG.{_r(rng, 22)}.{(s := _r(rng, 43))} (rotate soon)", s)
    add("discord-bot", f"client.run('M{_r(rng, 23)}.{_r(rng, 6)}.{(s := _r(rng, 27, _ALNUM + '-_'))}')", s)
    add("discord-webhook", f"https://discord.com/api/webhooks/{_r(rng, 18, string.digits)}/"
                           f"{(s := _r(rng, 68, _ALNUM + '-_'))}", s)
    add("github-pat", f"git remote set-url origin https://x:ghp_{(s := _r(rng, 36))}@github.com/a/b", s)
    add("github-fine", f"GH_TOKEN github_pat_{(s := _r(rng, 82, _ALNUM + '_'))}", s)
    add("gitlab", f"PRIVATE-TOKEN: glpat-{(s := _r(rng, 20, _ALNUM + '-_'))}", s)
    add("openai", f"OpenAI(api_key=\"sk-proj-{(s := _r(rng, 48, _ALNUM + '-_'))}\")", s)
    add("anthropic", f"x-api-key: sk-ant-api03-{(s := _r(rng, 93, _ALNUM + '-_'))}AA", s)
    add("huggingface", f"huggingface-cli login --token hf_{(s := _r(rng, 34))}", s)
    add("npm", f"//registry.npmjs.org/:_authToken=npm_{(s := _r(rng, 36))}", s)
    add("pypi", f"password = pypi-AgEIcHlwaS5vcmc{(s := _r(rng, 60, _ALNUM + '-_'))}", s)
    add("twilio", f"TWILIO_AUTH_TOKEN={(s := _hex(rng, 32))}", s)
    add("mailgun", f"api: key-{(s := _hex(rng, 32))}", s)
    add("telegram", f"bot = Bot('{_r(rng, 10, string.digits)}:AA{(s := _r(rng, 33, _ALNUM + '-_'))}')", s)
    add("shopify", f"X-Shopify-Access-Token: shpat_{(s := _hex(rng, 32))}", s)
    # JWTs and cookies
    for _ in range(2):
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        payload = base64.urlsafe_b64encode(json.dumps({"sub": _r(rng, 8), "exp": 1893456000}).encode()).decode()
        jwt = f"{head}.{payload.rstrip('=')}.{_r(rng, 43, _ALNUM + '-_')}"
        add("jwt", f"the id_token came back as {jwt}", jwt.split(".")[2], jwt.split(".")[1])
    add("cookie", f"Cookie: sessionid={(a := _r(rng, 32))}; csrftoken={(b := _r(rng, 32))}; theme=dark", a, b)
    add("set-cookie", f"HTTP/1.1 200 OK\nSet-Cookie: __Host-sid={(a := _r(rng, 40))}; Path=/; Secure; HttpOnly", a)
    add("cookie-curl", f"curl -b 'session={(a := _r(rng, 28))}' https://app.example.com/me", a)
    # Authorization of every scheme
    add("auth-bearer", f"Authorization: Bearer {(s := _r(rng, 40, _ALNUM + '._-'))}", s)
    s = base64.b64encode(b"deploy:" + _r(rng, 14).encode()).decode()
    add("auth-basic", f"-H 'Authorization: Basic {s}'", s)
    add("auth-token", f"Authorization: token {(s := _hex(rng, 40))}", s)
    add("auth-digest", f'Authorization: Digest username="ops", realm="api", nonce="{_hex(rng, 16)}", '
                       f'uri="/x", response="{(s := _hex(rng, 32))}"', s)
    add("auth-aws4", f"Authorization: AWS4-HMAC-SHA256 Credential=AKIA{_r(rng, 16).upper()}/20261201/us-east-1/s3/"
                     f"aws4_request, SignedHeaders=host;x-amz-date, Signature={(s := _hex(rng, 64))}", s)
    add("auth-json", json.dumps({"headers": {"Authorization": f"ApiKey {(s := _r(rng, 30))}"}}), s)
    # DSNs and URLs with a password
    add("dsn-slash", f"DATABASE_URL=postgres://app:{(s := _r(rng, 6) + '/' + _r(rng, 8))}@db.internal:5432/app", s)
    add("dsn-mongo", f"mongodb+srv://root:{(s := _r(rng, 16))}@cluster0.ab1cd.mongodb.net/?retryWrites=true", s)
    add("dsn-at", f"mysql://admin:{(s := _r(rng, 5) + '@' + _r(rng, 7))}@10.0.0.5/shop", s)
    add("dsn-redis", f"redis://:{(s := _r(rng, 20))}@cache:6379/0", s)
    add("url-query", f"https://api.example.com/v1/report?user=ops&password={(s := _r(rng, 12))}&fmt=csv", s)
    # assignments whose key name means secret
    add("env-db-pass", f"DB_HOST=db\nDB_PASS={(s := _r(rng, 5))}\nDB_USER=app", s)
    add("env-smtp-pass", f"SMTP_PASS={(s := _r(rng, 3) + ',' + _r(rng, 6))}", s)
    add("env-mysql-pwd", f"MYSQL_PWD={(s := _r(rng, 10))} mysqldump shop", s)
    add("yaml-password", f"database:\n  user: app\n  password: \"{(s := 'correct horse ' + _r(rng, 8))}\"\n", s)
    add("yaml-client-secret", f"oauth:\n  client_secret: {(s := _r(rng, 32))}\n", s)
    add("toml-secret", f"[server]\nsecret_key = \"{(s := _r(rng, 50))}\"\n", s)
    add("json-password-spaces", json.dumps({"user": "ops", "password": (s := f"{_r(rng, 4)} {_r(rng, 5)} x")}), s)
    add("json-password-comma", json.dumps({"db": {"password": (s := f"{_r(rng, 4)},{_r(rng, 5)}")}}), s)
    add("ini-passwd", f"[client]\nuser = root\npasswd = {(s := _r(rng, 12))}\n", s)
    add("k8s-secret", f"data:\n  password: {(s := base64.b64encode(_r(rng, 12).encode()).decode())}\n", s)
    add("docker-auth", json.dumps({"auths": {"ghcr.io": {"auth": (s := base64.b64encode(
        f"ops:{_r(rng, 20)}".encode()).decode())}}}), s)
    # command-line passwords
    add("cli-mysql-p", f"mysql -h db -u root -p{(s := _r(rng, 10))} shop", s)
    add("cli-password-eq", f"psql --password={(s := _r(rng, 12))} -h db", s)
    add("cli-password-quoted", f"tool --password '{(s := _r(rng, 5) + ' ' + _r(rng, 5))}' --verbose", s)
    add("cli-curl-u", f"curl -u deploy:{(s := _r(rng, 14))} https://ci.example.com/api", s)
    add("cli-sshpass", f"sshpass -p '{(s := _r(rng, 11))}' ssh root@10.0.0.9", s)
    add("cli-docker-login", f"docker login -u ops -p {(s := _r(rng, 20))} registry.example.com", s)
    add("cli-token-flag", f"gh auth login --with-token --api-key {(s := _r(rng, 30))}", s)
    # secrets inside JSON-escaped tool-call arguments
    s = _r(rng, 6) + " " + _r(rng, 6)
    add("tool-args-env", json.dumps({"command": f'export DB_PASSWORD="{s}" && ./run'}), s)
    add("tool-args-nested", json.dumps({"body": json.dumps({"password": (s := _r(rng, 14)), "user": "x"})}), s)
    add("tool-args-header", json.dumps({"headers": "Authorization: Bearer " + (s := _r(rng, 32)) + "\nAccept: */*"}), s)
    return out


def look_alikes(seed: int = SEED) -> list[LookAlike]:
    rng = random.Random(seed + 1)
    out: list[LookAlike] = []

    def add(kind: str, text: str, *keep: str) -> None:
        out.append(LookAlike(kind, text, tuple(keep)))

    for _ in range(3):
        sha = _hex(rng, 40)
        add("commit-sha", f"git checkout {sha} && git log -1 {sha[:7]}", sha, sha[:7])
    add("sha256", f"sha256sum: {(h := _hex(rng, 64))}  dist/app.tar.gz", h)
    add("md5", f"md5 {(h := _hex(rng, 32))} matches", h)
    import uuid
    for _ in range(3):
        u = str(uuid.UUID(int=rng.getrandbits(128)))
        add("uuid", f"request id {u} failed; retry with trace {u}", u)
    add("docker-digest", f"image@sha256:{(h := _hex(rng, 64))}", h)
    add("prose-password", "The password field is required; passwords must be rotated every 90 days.",
        "The password field is required")
    add("prose-token", "max_tokens=4096 and count_tokens(text) returns the number of tokens", "max_tokens=4096")
    add("code-path", "see src/secret_manager.py and tests/test_token_refresh.py", "src/secret_manager.py",
        "tests/test_token_refresh.py")
    add("url-plain", "https://docs.example.com:8443/guide/auth.html#tokens", "https://docs.example.com:8443/guide/auth.html")
    add("git-push", "git push -u origin feature/login && mkdir -p build/out", "git push -u origin feature/login",
        "mkdir -p build/out")
    add("email", "mail ops@example.com: deploy done", "ops@example.com")
    add("base64-image", f"data:image/png;base64,iVBORw0KGgo{(b := _r(rng, 40, _B64))}", b)
    add("k8s-name", "secretName: tls-cert\nsecret_name: db-creds", "tls-cert", "db-creds")
    add("python-annot", "def login(user: str, password: str) -> Token:", "password: str")
    return out


def split(items: list, seed: int = SPLIT_SEED) -> tuple[list, list]:  # type: ignore[type-arg]
    """``(dev, test)`` halves by a fixed shuffle."""
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return [items[i] for i in sorted(order[:half])], [items[i] for i in sorted(order[half:])]
