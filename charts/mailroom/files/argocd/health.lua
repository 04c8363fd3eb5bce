-- Argo CD health check for Mailroom's custom resources (ApiKey, SendingDomain, Template, WebhookEndpoint, all
-- mailroom.dev). Wire it into argocd-cm once per kind, as resource.customizations.health.mailroom.dev_<Kind>
-- (README, "Argo CD"). It reads the same conditions kstatus does, so Argo CD and Flux agree:
--   deleting, or status not yet written for this generation  -> Progressing
--   Stalled=True (a conflict, a missing Secret: a person must act)  -> Degraded
--   Ready=True because spec.enabled is false (reason Disabled)     -> Suspended
--   Ready=True otherwise                                           -> Healthy
--   anything else (Reconciling=True, a pending verification)       -> Progressing
-- Argo CD runs it in gopher-lua (Lua 5.1) with `obj` set to the resource; only base Lua is used.
local hs = {}

local function condition(kind)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local function describe(c)
  if c.message ~= nil and c.message ~= "" then
    return c.reason .. ": " .. c.message
  end
  return c.reason
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Being deleted; the operator releases what it created first"
  return hs
end

local generation = obj.metadata and obj.metadata.generation or nil
local observed = obj.status and obj.status.observedGeneration or nil
if observed == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Mailroom operator to reconcile it"
  return hs
end
if generation ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the Mailroom operator to observe generation " .. generation
  return hs
end

local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end

local ready = condition("Ready")
if ready ~= nil and ready.status == "True" and ready.reason == "Disabled" then
  hs.status = "Suspended"
  hs.message = describe(ready)
  return hs
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready)
  return hs
end

local reconciling = condition("Reconciling")
hs.status = "Progressing"
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = describe(reconciling)
elseif ready ~= nil then
  hs.message = describe(ready)
else
  hs.message = "Waiting for the Mailroom operator to report Ready"
end
return hs
