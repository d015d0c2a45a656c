export const AGENT_SCRIPT = "#!/bin/sh\n";
