//! Frames: a message with the request id it carries or answers, and their JSON.

use serde::{Deserialize, Serialize};

use crate::ids::RequestId;
use crate::message::{ClientMessage, ServerMessage};

/// A message from a client, with its optional request id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientFrame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub message: ClientMessage,
}

/// A message from the server; `id` echoes the request it answers, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFrame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub message: ServerMessage,
}

impl ServerFrame {
    /// A frame that answers no request.
    pub fn event(message: ServerMessage) -> ServerFrame {
        ServerFrame { id: None, message }
    }

    /// A frame that answers the request with `id`.
    pub fn reply(id: Option<RequestId>, message: ServerMessage) -> ServerFrame {
        ServerFrame { id, message }
    }

    /// The frame as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server frames always serialise")
    }
}

impl ClientFrame {
    /// A request with no id.
    pub fn new(message: ClientMessage) -> ClientFrame {
        ClientFrame { id: None, message }
    }

    /// The frame as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client frames always serialise")
    }
}
