// Loaded into every Node child of `pnpm start` (`node --import`): when the supervisor is gone the
// child gets the SIGTERM the supervisor would have sent, so it stops as it always does (the devnet
// saves its state), within its grace time (supervisor-link.mjs).
import { onSupervisorGone } from "./supervisor-link.mjs";

onSupervisorGone(() => process.kill(process.pid, "SIGTERM"));
