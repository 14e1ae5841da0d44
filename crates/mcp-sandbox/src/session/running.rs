//! A started sandbox with its connected driver.

use std::path::Path;

use super::{SessionError, Shared};
use crate::backend::{SandboxHandle, SandboxSpec};
use crate::driver::Driver;
use crate::flavor::Flavor;
use crate::template::Template;

/// A sandbox whose interpreter reported ready.
pub(crate) struct Running {
    pub(crate) driver: Driver,
    pub(crate) handle: Box<dyn SandboxHandle>,
}

impl Running {
    /// Starts a sandbox named `name` on `workspace` and waits for its driver.
    pub(crate) async fn start(
        shared: &Shared,
        name: &str,
        template: Template,
        flavor: Flavor,
        workspace: &Path,
    ) -> Result<Running, SessionError> {
        let spec = SandboxSpec {
            session_id: name.to_owned(),
            template,
            limits: shared.config.limits(flavor),
            workspace: workspace.to_owned(),
            volumes: shared.volumes.clone(),
            network: shared.config.network,
        };
        let sandbox = shared
            .backend
            .start(&spec)
            .await
            .map_err(|e| SessionError::StartFailed(e.to_string()))?;
        let (driver, mut handle) = Driver::connect(sandbox, shared.config.start_timeout).await;
        match driver {
            Ok(driver) => Ok(Running { driver, handle }),
            Err(reason) => {
                handle.kill().await;
                Err(SessionError::StartFailed(reason))
            }
        }
    }

    /// `python 3.11.2`, `node 20.20.2`.
    pub(crate) fn interpreter(&self) -> String {
        let ready = self.driver.ready();
        format!("{} {}", ready.language, ready.version)
    }
}
