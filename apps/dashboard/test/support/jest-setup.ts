// Browser tests drive a real control plane, agent, dashboard server and Chromium.
jest.setTimeout(60_000);
