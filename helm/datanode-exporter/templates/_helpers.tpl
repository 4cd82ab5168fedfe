{{- define "dne.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "dne.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "dne.labels" -}}
app.kubernetes.io/name: {{ include "dne.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- /* [registry/]repository(@digest|:tag): global.imageRegistry over image.registry, a digest over the tag. */ -}}
{{- define "dne.image" -}}
{{- $registry := dig "imageRegistry" "" (.Values.global | default dict) | default .Values.image.registry -}}
{{- $ref := printf ":%s" (.Values.image.tag | default .Chart.AppVersion) -}}
{{- with .Values.image.digest }}{{ $ref = printf "@%s" . }}{{ end -}}
{{- if $registry }}{{ printf "%s/" (trimSuffix "/" $registry) }}{{ end }}{{ .Values.image.repository }}{{ $ref }}
{{- end -}}

{{- /* global.imagePullSecrets then imagePullSecrets; a name alone becomes {name: ...}. */ -}}
{{- define "dne.imagePullSecrets" -}}
{{- $out := list -}}
{{- range concat (dig "imagePullSecrets" list (.Values.global | default dict)) (.Values.imagePullSecrets | default list) -}}
{{- $out = append $out (ternary (dict "name" .) . (kindIs "string" .)) -}}
{{- end -}}
{{- with $out }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{- /* Where the monitoring objects go (serviceMonitor/podMonitor/prometheusRule .namespace): the
       release's namespace unless set. Call with (dict "ns" .Values.serviceMonitor.namespace "root" $). */ -}}
{{- define "dne.monitorNamespace" -}}
{{- .ns | default .root.Release.Namespace -}}
{{- end -}}

{{- define "dne.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dne.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- /* "https" when the pod serves TLS: a web config from a Secret with webConfig.tls (the default). */ -}}
{{- define "dne.scheme" -}}
{{- if and .Values.webConfig.existingSecret .Values.webConfig.tls -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{- /* A probe from values, with httpGet.scheme set to what the pod serves unless the values set it.
       A copy is changed, so .Values stays as given. Call with (dict "probe" P "root" $). */ -}}
{{- define "dne.probe" -}}
{{- $probe := deepCopy .probe -}}
{{- if and $probe.httpGet (not (hasKey $probe.httpGet "scheme")) -}}
{{- $_ := set $probe.httpGet "scheme" (include "dne.scheme" .root | upper) -}}
{{- end -}}
{{- toYaml $probe -}}
{{- end -}}

{{- define "dne.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dne.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- /* "Secret" when `config` is rendered into a Secret: asked for, or some target has inline headers
       (their values must not land in a ConfigMap); else "ConfigMap". */ -}}
{{- define "dne.configKind" -}}
{{- $secret := .Values.configSecret -}}
{{- range (.Values.config | default dict).targets -}}
{{- if .headers -}}{{- $secret = true -}}{{- end -}}
{{- end -}}
{{- if $secret -}}Secret{{- else -}}ConfigMap{{- end -}}
{{- end -}}

{{- /* The scrape settings a ServiceMonitor endpoint and a PodMonitor podMetricsEndpoint share. Call
       with (dict "m" .Values.serviceMonitor "root" $). */ -}}
{{- define "dne.scrapeEndpoint" -}}
port: http
path: {{ .root.Values.telemetryPath }}
interval: {{ .m.interval }}
scrapeTimeout: {{ .m.scrapeTimeout }}
scheme: {{ .m.scheme | default (include "dne.scheme" .root) }}
{{- with .m.tlsConfig }}
tlsConfig: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .m.basicAuth }}
basicAuth: {{ toYaml . | nindent 2 }}
{{- end }}
{{- if .m.honorLabels }}
honorLabels: true
{{- end }}
# job="datanode-exporter" whatever the release or nameOverride: DatanodeExporterDown selects that job.
relabelings:
  - targetLabel: job
    replacement: {{ .root.Chart.Name }}
  {{- with .m.relabelings }}{{ toYaml . | nindent 2 }}{{ end }}
{{- with .m.metricRelabelings }}
metricRelabelings: {{ toYaml . | nindent 2 }}
{{- end }}
{{- end -}}


{{- /* The Secrets and ConfigMaps the pod mounts whose changes no checksum in the pod template
       follows: {"secrets": [...], "configMaps": [...]}, for the Reloader annotations. The chart's
       own ConfigMap is left out: its checksum rolls the pods already (Reloader would roll them twice). */ -}}
{{- define "dne.configSources" -}}
{{- $secrets := list -}}
{{- $maps := list -}}
{{- if .Values.existingConfigSecret }}{{ $secrets = append $secrets .Values.existingConfigSecret }}
{{- else if .Values.existingConfigMap }}{{ $maps = append $maps .Values.existingConfigMap }}
{{- else if eq (include "dne.configKind" .) "Secret" }}{{ $secrets = append $secrets (include "dne.fullname" .) }}{{ end -}}
{{- with .Values.webConfig.existingSecret }}{{ $secrets = append $secrets . }}{{ end -}}
{{- toJson (dict "secrets" $secrets "configMaps" $maps) -}}
{{- end -}}

{{- /* The page every alert's runbook_url links: prometheusRule.runbookURL, by default the /runbook page
       this release's exporter serves (docs/runbook.md of its version) through its Service. */ -}}
{{- define "dne.runbookURL" -}}
{{- .Values.prometheusRule.runbookURL | default (printf "%s://%s.%s.svc:%v/runbook" (include "dne.scheme" .) (include "dne.fullname" .) .Release.Namespace .Values.service.port) -}}
{{- end -}}
