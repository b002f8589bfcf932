//! Accounts from a test's side: registering a guest (as any player of a rated game must be),
//! and signing in with a username and a password on a new connection (a second device).

use noughts_protocol::{
    ClientFrame, ClientMessage, Credentials, ErrorCode, PROTOCOL_VERSION, PlayerId, ServerMessage,
    validate_username,
};

use crate::{Client, Socket, connect, read_frame, send_frame};

/// Credentials for `username` and `password`, from a device called `device`.
pub fn credentials(username: &str, password: &str, device: Option<&str>) -> Credentials {
    Credentials {
        username: username.to_owned(),
        password: password.to_owned(),
        device: device.map(str::to_owned),
        device_cookie: None,
    }
}

/// `register` with request `id`: the reply.
pub async fn register(
    client: &mut Client,
    id: u64,
    username: &str,
    password: &str,
) -> ServerMessage {
    let message = ClientMessage::Register(credentials(username, password, None));
    client.request(id, message).await
}

/// Registers `client` as `username`, asserting that it worked.
pub async fn registered(client: &mut Client, username: &str, password: &str) {
    match register(client, 900, username, password).await {
        ServerMessage::Registered {
            player,
            username: got,
            ..
        } => {
            assert_eq!(player, client.player);
            assert_eq!(got, username);
        }
        other => panic!("expected registered, got {other:?}"),
    }
}

/// A password the server takes, for tests' accounts.
pub const TEST_PASSWORD: &str = "tangerine umbrella 42";

/// The username a test account of a player called `name` takes: the name itself when the rules
/// allow it (so that leaderboards show what the test named its players), else
/// [`numbered_username`].
pub fn username_for(name: &str, player: PlayerId) -> String {
    if validate_username(name).is_ok() {
        return name.to_owned();
    }
    numbered_username(name, player)
}

/// A username no other player's test account takes: the name's first letters and digits and the
/// player's id.
pub fn numbered_username(name: &str, player: PlayerId) -> String {
    let kept: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(10)
        .collect();
    format!("{kept}_{}", player.0)
}

/// The request that makes the guest called `name` with id `player` an account (see
/// [`username_for`]), for clients of the tests' own making.
pub fn register_request(name: &str, player: PlayerId) -> ClientMessage {
    let username = username_for(name, player);
    ClientMessage::Register(credentials(&username, TEST_PASSWORD, None))
}

/// Makes the guest `client` an account, as a rated game needs: named [`username_for`] its name,
/// or [`numbered_username`] when another account has that.
pub async fn make_account(client: &mut Client) {
    let username = username_for(&client.name, client.player);
    match register(client, 900, &username, TEST_PASSWORD).await {
        ServerMessage::Registered { player, .. } => assert_eq!(player, client.player),
        ServerMessage::Error {
            code: ErrorCode::UsernameTaken,
            ..
        } => {
            let numbered = numbered_username(&client.name, client.player);
            registered(client, &numbered, TEST_PASSWORD).await;
        }
        other => panic!("{}: expected registered, got {other:?}", client.name),
    }
}

/// Says hello on `socket` with a username and password: the client when welcomed, else the
/// answer.
pub async fn sign_in_on(
    mut socket: Socket,
    username: &str,
    password: &str,
    device: Option<&str>,
) -> Result<(Client, bool), ServerMessage> {
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: username.to_owned(),
        token: None,
        credentials: Some(credentials(username, password, device)),
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut socket).await.expect("an answer to hello");
    match frame.message {
        ServerMessage::Welcome {
            player,
            token,
            resumed,
            ..
        } => Ok((Client::welcomed(socket, username, player, token), resumed)),
        other => Err(other),
    }
}

/// Connects to `url` and signs in; the answer when refused.
pub async fn try_sign_in(
    url: &str,
    username: &str,
    password: &str,
    device: Option<&str>,
) -> Result<Client, ServerMessage> {
    sign_in_on(connect(url).await, username, password, device)
        .await
        .map(|(client, _)| client)
}

/// Connects to `url` and signs in, asserting that it worked and that it is `player`.
pub async fn sign_in(url: &str, username: &str, password: &str, player: PlayerId) -> Client {
    match try_sign_in(url, username, password, None).await {
        Ok(client) => {
            assert_eq!(client.player, player, "signed in as the account's player");
            client
        }
        Err(answer) => panic!("expected welcome, got {answer:?}"),
    }
}

/// Whether `token` still opens a session on `url` (trading it for a new one if it does).
pub async fn token_works(url: &str, token: &str) -> bool {
    let mut socket = connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "someone".to_owned(),
        token: Some(token.to_owned()),
        credentials: None,
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut socket).await.expect("an answer to hello");
    match frame.message {
        ServerMessage::Welcome { .. } => true,
        ServerMessage::Error { code, .. } => {
            assert_eq!(code, noughts_protocol::ErrorCode::UnknownToken);
            false
        }
        other => panic!("welcome or an error, got {other:?}"),
    }
}

/// The first answer to a sign-in of `username` with `password` (and a device cookie, if given),
/// on a new connection to `url` whose trusted proxy says it comes from `address`.
pub async fn sign_in_answer_from(
    url: &str,
    address: &str,
    username: &str,
    password: &str,
    device_cookie: Option<&str>,
) -> ServerMessage {
    use noughts_kit::client as kit;
    let (mut request, stream) = kit::dial(url, None).await.expect("connected");
    let forwarded = address.parse().expect("an address");
    request.headers_mut().append("x-forwarded-for", forwarded);
    let mut socket = kit::handshake(request, tokio_tungstenite::MaybeTlsStream::Plain(stream))
        .await
        .expect("connected");
    let mut credentials = credentials(username, password, Some(address));
    credentials.device_cookie = device_cookie.map(str::to_owned);
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: username.to_owned(),
        token: None,
        credentials: Some(credentials),
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    read_frame(&mut socket).await.expect("an answer").message
}
