//! The handler of every request: one exhaustive match over the typed [`ClientRequest`], at the
//! end of the middleware chain. A method added to `ClientRequest` does not compile until it is
//! routed here.

use mcp_jsonrpc::ErrorObject;
use mcp_jsonrpc::error_codes::METHOD_NOT_FOUND;
use mcp_schema::methods::ExtensionRow;
use mcp_schema::{ClientRequest, EmptyResult, ProtocolVersion, ServerResult};

use super::envelope::missing_extension;
use super::{lifecycle, listen, prompts, resources, skills, tasks, tools};
use crate::error::{Error, reflect};
use crate::middleware::{Call, Endpoint, MiddlewareFuture, Request, Served};

/// The end of the middleware chain.
pub(super) struct Router;

impl Endpoint for Router {
    fn call<'a>(&'a self, request: Request<'a>) -> MiddlewareFuture<'a> {
        Box::pin(route(request.call()))
    }
}

async fn route(call: &Call<'_>) -> Served {
    let version = call.cx.protocol_version();
    // A method outside the request's era is unknown to it (the method table says where each
    // method exists).
    if !call.info.is_some_and(|info| info.exists_in(version)) {
        return Err(method_not_found(call.request.method(), version));
    }
    if let Some(extension) = call.info.and_then(|info| info.extension_at(version)) {
        extension_gate(call, extension)?;
    }
    use ClientRequest as R;
    use ServerResult as S;
    match &call.request {
        R::Initialize(p) => lifecycle::initialize(call, p).map(S::Initialize),
        R::Ping(_) => Ok(S::Empty(EmptyResult::default())),
        R::Discover(_) => Ok(S::Discover(lifecycle::discover(call))),
        R::SetLevel(p) => lifecycle::set_level(call, p).map(S::Empty),
        R::ListTools(p) => tools::list(call, p.as_ref()).map(S::ListTools),
        R::CallTool(p) => tools::call(call, p).await.map(S::CallTool),
        R::ListResources(p) => resources::list(call, p.as_ref()).map(S::ListResources),
        R::ListResourceTemplates(p) => {
            resources::list_templates(call, p.as_ref()).map(S::ListResourceTemplates)
        }
        R::ReadResource(p) => resources::read(call, p).await.map(S::ReadResource),
        R::Subscribe(p) => resources::subscribe(call, p, true).map(S::Empty),
        R::Unsubscribe(p) => resources::subscribe(call, p, false).map(S::Empty),
        R::ListPrompts(p) => prompts::list(call, p.as_ref()).map(S::ListPrompts),
        R::GetPrompt(p) => prompts::get(call, p).await.map(S::GetPrompt),
        R::Complete(p) => prompts::complete(call, p).map(S::Complete),
        R::SubscriptionsListen(p) => listen::listen(call, p).await.map(S::SubscriptionsListen),
        // The experimental 2025-11-25 tasks are not served.
        R::GetTask(_) | R::CancelTask(_) | R::UpdateTask(_) if version.is_stateful() => {
            Err(method_not_found(call.request.method(), version))
        }
        R::GetTask(p) => tasks::get(call, p).await.map(S::TaskGet),
        R::UpdateTask(p) => tasks::update(call, p).await.map(S::Empty),
        R::CancelTask(p) => tasks::cancel(call, p).await.map(S::TaskCancel),
        R::GetTaskPayload(_) | R::ListTasks(_) => {
            Err(method_not_found(call.request.method(), version))
        }
        R::ListSkills(p) => skills::list(call, p.as_ref()).map(S::ListSkills),
        R::GetSkill(p) => skills::get(call, p).map(S::GetSkill),
        R::ReadDirectory(p) => skills::read_directory(call, p).map(S::ReadDirectory),
        R::Unknown { .. } => Err(method_not_found(call.request.method(), version)),
    }
}

/// A method of an extension: `-32601` when the server does not serve the extension, `-32021`
/// when the method needs the client to declare it and the request did not.
fn extension_gate(call: &Call<'_>, extension: &ExtensionRow) -> Result<(), Error> {
    let version = call.cx.protocol_version();
    if !call.cx.server().serves_extension(extension.id) {
        return Err(method_not_found(call.request.method(), version));
    }
    if extension.client_declares
        && !call
            .cx
            .client_capabilities()
            .declares_extension(extension.id)
    {
        return Err(missing_extension(
            extension.id,
            format!(
                "{} needs the {} extension, which the request's client capabilities do not declare",
                call.request.method(),
                extension.id
            ),
        ));
    }
    Ok(())
}

/// `-32601` for `method` in `version`.
pub(super) fn method_not_found(method: &str, version: ProtocolVersion) -> Error {
    Error::rpc(ErrorObject::new(
        METHOD_NOT_FOUND,
        format!(
            "Method not found: {} (protocol {})",
            reflect(method),
            version.as_str()
        ),
    ))
}
