{{/* Chart name, truncated to the 63-character limit of a DNS label. */}}
{{- define "mailroom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name prefix: <release>-mailroom, or the release name when it already says mailroom. */}}
{{- define "mailroom.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mailroom.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "mailroom.labels" -}}
helm.sh/chart: {{ include "mailroom.chart" . }}
{{ include "mailroom.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mailroom
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "mailroom.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mailroom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component: call with (dict "root" $ "component" "api"). */}}
{{- define "mailroom.componentLabels" -}}
{{ include "mailroom.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "mailroom.componentSelectorLabels" -}}
{{ include "mailroom.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The image reference. global.imageRegistry moves it to a mirror: the repository's registry host (its first path
segment, when that has a dot or a port, or is localhost) is replaced, and the rest of the path is kept, so a
mirror made with `skopeo copy --all` (docs/air-gap.md) serves the same path.
*/}}
{{- define "mailroom.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- $repository := .Values.image.repository }}
{{- $registry := (.Values.global | default dict).imageRegistry | default "" }}
{{- if $registry }}
{{- $parts := splitList "/" $repository }}
{{- $first := first $parts }}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) }}
{{- $parts = rest $parts }}
{{- end }}
{{- $repository = printf "%s/%s" (trimSuffix "/" $registry) (join "/" $parts) }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository $tag }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding the API's certificate (tls.crt, tls.key, maybe ca.crt). */}}
{{- define "mailroom.tlsSecretName" -}}
{{- if eq .Values.tls.mode "existingSecret" }}
{{- required "tls.existingSecret.name is required when tls.mode is existingSecret" .Values.tls.existingSecret.name }}
{{- else }}
{{- printf "%s-api-tls" (include "mailroom.fullname" .) }}
{{- end }}
{{- end }}

{{- define "mailroom.caConfigMapName" -}}
{{- printf "%s-ca" (include "mailroom.fullname" .) }}
{{- end }}

{{- define "mailroom.apiServiceName" -}}
{{- printf "%s-api" (include "mailroom.fullname" .) }}
{{- end }}

{{- define "mailroom.submissionServiceName" -}}
{{- printf "%s-submission" (include "mailroom.fullname" .) }}
{{- end }}

{{/* DNS names the API certificate covers; the SMTP Service's too when it is enabled (it serves the same one). */}}
{{- define "mailroom.apiDnsNames" -}}
{{- $names := list }}
{{- $services := list (include "mailroom.apiServiceName" .) }}
{{- if .Values.submission.enabled }}{{ $services = append $services (include "mailroom.submissionServiceName" .) }}{{ end }}
{{- range $svc := $services }}
{{- $names = concat $names (list $svc (printf "%s.%s" $svc $.Release.Namespace) (printf "%s.%s.svc" $svc $.Release.Namespace) (printf "%s.%s.svc.%s" $svc $.Release.Namespace $.Values.clusterDomain)) }}
{{- end }}
{{- concat $names .Values.tls.extraDnsNames | toJson }}
{{- end }}

{{/*
The operator's leader-election Lease, in the release namespace. Named after the release, so two releases in
one namespace elect a leader each instead of sharing one Lease (MAILROOM_OPERATOR_LEASE_NAME).
*/}}
{{- define "mailroom.operatorLeaseName" -}}
{{- printf "%s-operator" (include "mailroom.fullname" .) }}
{{- end }}

{{/*
The namespaces the operator reconciles, comma-separated (operator.watchNamespaces plus operator.watchNamespace),
or empty for all of them. Each gets a Role; empty means one ClusterRole.
*/}}
{{- define "mailroom.operatorWatchedNamespaces" -}}
{{- $list := .Values.operator.watchNamespaces | default list }}
{{- with .Values.operator.watchNamespace }}{{ $list = append $list . }}{{ end }}
{{- $list | uniq | join "," }}
{{- end }}

{{/* The pod-level security context, shared by every pod the chart runs. */}}
{{- define "mailroom.podSecurityContext" -}}
{{ toYaml .Values.podSecurityContext }}
{{- end }}

{{/*
Environment of every Mailroom container: non-secret settings from the ConfigMap, the database URL from its
Secret, the key-encryption key as a mounted file. Call with (dict "root" $ "component" "api").
*/}}
{{- define "mailroom.env" -}}
{{ include "mailroom.databaseEnv" .root }}
{{- if and (eq .component "api") .root.Values.postgresql.cloudnative.enabled .root.Values.postgresql.cloudnative.readReplicas }}
{{- $cnpg := include "mailroom.cnpgName" .root }}
{{- /* The operator's Secret has no URL of the -ro Service: it is built here; Kubernetes expands $(NAME) from
the two variables defined just before it (the operator generates letters and digits only: nothing to escape). */}}
- name: CNPG_APP_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $cnpg }}-app
      key: username
- name: CNPG_APP_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $cnpg }}-app
      key: password
- name: DATABASE_READ_URL
  value: "postgresql://$(CNPG_APP_USERNAME):$(CNPG_APP_PASSWORD)@{{ $cnpg }}-ro:5432/mailroom"
{{- end }}
- name: MAILROOM_KEY_ENCRYPTION_KEY_FILE
  value: /etc/mailroom/kek/key
{{- if eq .component "worker" }}
{{- if .root.Values.smtp.existingSecret }}
- name: MAILROOM_SMTP_URL
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.smtp.existingSecret }}
      key: {{ .root.Values.smtp.secretKey }}
{{- else }}
- name: MAILROOM_SMTP_URL
  value: {{ .root.Values.smtp.url | quote }}
{{- end }}
{{- end }}
{{- with .root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The CloudNativePG Cluster's name: its Services are <name>-rw and <name>-ro, its app Secret <name>-app. */}}
{{- define "mailroom.cnpgName" -}}
{{ include "mailroom.fullname" . | trunc 60 | trimSuffix "-" }}-db
{{- end }}

{{/*
DATABASE_URL of every program and of the migrations Job: the CloudNativePG Cluster's generated credentials
(key uri, a URL to the -rw Service) when the chart declares one, else the Secret named in database.
*/}}
{{- define "mailroom.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
{{- if .Values.postgresql.cloudnative.enabled }}
      name: {{ include "mailroom.cnpgName" . }}-app
      key: uri
{{- else }}
      name: {{ required "database.existingSecret is required" .Values.database.existingSecret }}
      key: {{ .Values.database.secretKey }}
{{- end }}
{{- end }}

{{/* Volumes every Mailroom pod mounts: a writable /tmp and the key-encryption key. */}}
{{- define "mailroom.commonVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
- name: kek
  secret:
    secretName: {{ required "keyEncryptionKey.existingSecret is required" .Values.keyEncryptionKey.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.keyEncryptionKey.secretKey }}
        path: key
{{- end }}

{{- define "mailroom.commonVolumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: kek
  mountPath: /etc/mailroom/kek
  readOnly: true
{{- end }}

{{/*
Spread replicas over zones and nodes unless the component sets its own constraints.
Call with (dict "root" $ "component" "api" "constraints" .Values.api.topologySpreadConstraints).
*/}}
{{- define "mailroom.topologySpread" -}}
{{- if .constraints }}
{{ toYaml .constraints }}
{{- else }}
{{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
- maxSkew: 1
  topologyKey: {{ $key }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "mailroom.componentSelectorLabels" (dict "root" $.root "component" $.component) | nindent 6 }}
  matchLabelKeys:
    - pod-template-hash
{{- end }}
{{- end }}
{{- end }}

{{/* Scheduling fields shared by the Deployments. Call with the component's values. */}}
{{- define "mailroom.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end }}

{{/* Probes on a program's internal port (named "internal"). */}}
{{- define "mailroom.probes" -}}
startupProbe:
  httpGet:
    path: /healthz
    port: internal
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: internal
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: internal
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end }}

{{/* An alert's runbook: a URL under metrics.prometheusRule.runbookBaseUrl, else the file in the repository. */}}
{{- define "mailroom.runbook" -}}
{{- if .base -}}
runbook_url: {{ printf "%s/%s.md" .base .name }}
{{- else -}}
runbook: {{ printf "docs/runbooks/%s.md in the Mailroom repository" .name }}
{{- end }}
{{- end }}

{{/*
The ServiceAccount a program runs as: serviceAccount.name for every program when set (one account you manage or
the chart creates), else <fullname>-<component>. Call with (dict "root" $ "component" "api").
*/}}
{{- define "mailroom.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.name -}}
{{- .root.Values.serviceAccount.name -}}
{{- else -}}
{{- include "mailroom.fullname" .root }}-{{ .component -}}
{{- end -}}
{{- end }}

{{/* Whether the chart creates one ServiceAccount per program (serviceAccount.create, no serviceAccount.name). */}}
{{- define "mailroom.serviceAccountPerProgram" -}}
{{- if and .Values.serviceAccount.create (not .Values.serviceAccount.name) }}true{{ end -}}
{{- end }}

{{/* "true" when the reserved lane runs in its own Deployment, <fullname>-worker-reserved (it needs slots). */}}
{{- define "mailroom.workerReservedSeparate" -}}
{{- if and .Values.worker.reservedLane.separate (gt (int .Values.worker.reservedConcurrency) 0) }}true{{ end -}}
{{- end }}

{{/* The worker programs' components: the worker, and its reserved lane's when that has a Deployment. */}}
{{- define "mailroom.workerComponents" -}}
{{- if eq (include "mailroom.workerReservedSeparate" .) "true" }}["worker","worker-reserved"]{{ else }}["worker"]{{ end -}}
{{- end }}
