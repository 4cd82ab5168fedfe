// Command chart-render renders a Helm chart the way `helm template` does, using Helm's engine
// (Go text/template + sprig + the functions Helm adds) but not Helm itself: no Helm binary can be
// installed here, while Go, sprig and sigs.k8s.io/yaml come from Debian's packages.
//
//	chart-render [-f values.yaml]... [-name NAME] [-namespace NS] [-kube-version V] [-show-values] CHART_DIR
//
// Mirrors Helm 3 (pkg/engine, pkg/chart/loader, pkg/releaseutil): all templates are parsed into one
// set (deepest path first, then reverse-alphabetical), files starting with "_" are not rendered,
// "<no value>" is erased, NOTES.txt is rendered but not printed, each rendered file is split into
// documents, empty ones dropped, every document must parse as YAML, and documents are printed in
// Helm's install order by kind, each after "---" and "# Source: CHART/templates/FILE".
// Not mirrored: subcharts, hooks, .helmignore (refused if present), --set, toToml/fromToml, and
// schema validation (the project's test validates the merged values from -show-values with ajv).
// lookup returns an empty map, as in helm template.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/semver/v3"
	"github.com/Masterminds/sprig/v3"
	"github.com/gobwas/glob"
	"sigs.k8s.io/yaml"
)

// chartMeta is Chart.yaml, with the field names templates use (.Chart.Name, .Chart.AppVersion...).
type chartMeta struct {
	APIVersion   string                   `json:"apiVersion,omitempty"`
	Name         string                   `json:"name,omitempty"`
	Version      string                   `json:"version,omitempty"`
	AppVersion   string                   `json:"appVersion,omitempty"`
	KubeVersion  string                   `json:"kubeVersion,omitempty"`
	Description  string                   `json:"description,omitempty"`
	Type         string                   `json:"type,omitempty"`
	Keywords     []string                 `json:"keywords,omitempty"`
	Home         string                   `json:"home,omitempty"`
	Sources      []string                 `json:"sources,omitempty"`
	Icon         string                   `json:"icon,omitempty"`
	Deprecated   bool                     `json:"deprecated,omitempty"`
	Annotations  map[string]string        `json:"annotations,omitempty"`
	Maintainers  []map[string]interface{} `json:"maintainers,omitempty"`
	Dependencies []map[string]interface{} `json:"dependencies,omitempty"`
}

// files is .Files: every chart file outside templates/ other than Chart.yaml and the values files.
type files map[string][]byte

func (f files) Get(name string) string      { return string(f[name]) }
func (f files) GetBytes(name string) []byte { return f[name] }
func (f files) AsSecrets() string {
	return f.asMap(func(b []byte) string { return base64.StdEncoding.EncodeToString(b) })
}
func (f files) AsConfig() string { return f.asMap(func(b []byte) string { return string(b) }) }
func (f files) Glob(pattern string) files {
	// Helm uses gobwas/glob with '/' as separator ("*" stays within a directory, "**" crosses).
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g, _ = glob.Compile("**")
	}
	out := files{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}
func (f files) Lines(name string) []string {
	s := string(f[name])
	if s == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// asMap keys the files by base name, as Helm's AsConfig/AsSecrets do.
func (f files) asMap(enc func([]byte) string) string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = enc(data)
	}
	return toYAML(m)
}

type kubeVersion struct{ Version, Major, Minor string }

func (k kubeVersion) String() string     { return k.Version }
func (k kubeVersion) GitVersion() string { return k.Version }

type versionSet []string

func (v versionSet) Has(s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// capabilities is a minimal .Capabilities: a fixed Kubernetes version and the core API groups.
type capabilities struct {
	KubeVersion kubeVersion
	APIVersions versionSet
	HelmVersion map[string]string
}

func toYAML(v interface{}) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "" // Helm swallows marshal errors inside templates
	}
	return strings.TrimSuffix(string(b), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// Marks a `required` or `fail` message so the error can be reported without text/template's call chain.
const errStart, errEnd = "CHART_RENDER_ERR_START", "CHART_RENDER_ERR_END"

var errMark = regexp.MustCompile(errStart + `(.*)` + errEnd)

type engine struct {
	tpls map[string]string // template name (CHART/templates/FILE) -> source
}

// newSet parses every template into one set, with Helm's function map bound to that set.
// extra (for tpl) is parsed first under its name, so it replaces a file of the same name.
func (e *engine) newSet(extra map[string]string) (*template.Template, error) {
	t := template.New("gotpl").Option("missingkey=zero")
	depth := map[string]int{}
	fm := sprig.TxtFuncMap()
	delete(fm, "env") // Helm removes these: templates must not read the renderer's environment
	delete(fm, "expandenv")
	helm := template.FuncMap{
		"toYaml": toYAML, "fromYaml": fromYAML, "fromYamlArray": fromYAMLArray,
		"toJson": toJSON, "fromJson": fromJSON, "fromJsonArray": fromJSONArray,
		"include": func(name string, data interface{}) (string, error) {
			if depth[name] > 1000 {
				return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
			}
			depth[name]++
			defer func() { depth[name]-- }()
			var b strings.Builder
			err := t.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		"tpl": func(text string, vals map[string]interface{}) (string, error) {
			tm, _ := vals["Template"].(map[string]interface{})
			name, ok := tm["Name"].(string)
			if !ok {
				return "", errors.New("tpl: the values passed need .Template.Name (pass $)")
			}
			return e.exec(map[string]string{name: text}, name, vals)
		},
		// fail as Helm reports it: the template's location and the message.
		"fail": func(msg string) (string, error) { return "", errors.New(errStart + msg + errEnd) },
		"required": func(msg string, v interface{}) (interface{}, error) {
			if s, ok := v.(string); v == nil || (ok && s == "") {
				return v, errors.New(errStart + msg + errEnd)
			}
			return v, nil
		},
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil // no cluster: what helm template returns
		},
	}
	for k, v := range helm {
		fm[k] = v
	}
	t.Funcs(fm)
	names := sortTemplates(e.tpls)
	for name, src := range extra {
		if _, err := t.New(name).Parse(src); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if _, ok := extra[name]; ok {
			continue
		}
		if _, err := t.New(name).Parse(e.tpls[name]); err != nil {
			return nil, fmt.Errorf("parse error in %s: %w", name, err)
		}
	}
	return t, nil
}

// exec renders one template in a fresh set, as Helm does for each file and for tpl.
func (e *engine) exec(extra map[string]string, name string, vals map[string]interface{}) (string, error) {
	t, err := e.newSet(extra)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, vals); err != nil {
		// As Helm reports a `required` failure: its location ("FILE:LINE:COL") and message only.
		if m := errMark.FindStringSubmatch(err.Error()); m != nil {
			if parts := strings.SplitN(err.Error(), ": ", 3); len(parts) == 3 {
				name = parts[1]
			}
			return "", fmt.Errorf("execution error at (%s): %s", name, m[1])
		}
		return "", err
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}

// sortTemplates is Helm's parse order: deeper paths first, then reverse-alphabetical.
func sortTemplates(tpls map[string]string) []string {
	names := make([]string, 0, len(tpls))
	for n := range tpls {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ci, cj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		if ci != cj {
			return ci > cj
		}
		return names[i] > names[j]
	})
	return names
}

// Helm's InstallOrder; kinds not listed go last, alphabetically by kind.
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
	"ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList",
	"RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController",
	"ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
	"IngressClass", "Ingress", "APIService", "MutatingWebhookConfiguration",
	"ValidatingWebhookConfiguration",
}

type manifest struct{ source, kind, content string }

var docSep = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// coalesce overlays src on dst like Helm's value merge: maps merge key by key, a null deletes the
// key, anything else (lists included) replaces.
func coalesce(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, sok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			dst[k] = coalesce(dm, sm)
		} else {
			dst[k] = v
		}
	}
	return dst
}

func readYAML(file string, into interface{}) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func run() error {
	var valueFiles multi
	flag.Var(&valueFiles, "f", "values file deep-merged over the chart's values.yaml (repeatable; later wins)")
	name := flag.String("name", "release-name", "release name (helm template's default)")
	namespace := flag.String("namespace", "default", "release namespace")
	showValues := flag.Bool("show-values", false, "print the merged values as JSON instead of rendering")
	kubeVer := flag.String("kube-version", "v1.30.0", "the Kubernetes version .Capabilities reports (helm template --kube-version)")
	flag.Parse()
	if flag.NArg() != 1 {
		return errors.New("usage: chart-render [-f values.yaml]... [-name NAME] [-namespace NS] [-kube-version V] [-show-values] CHART_DIR")
	}
	dir := flag.Arg(0)

	var meta chartMeta
	if err := readYAML(filepath.Join(dir, "Chart.yaml"), &meta); err != nil {
		return err
	}
	if meta.Name == "" || meta.Version == "" {
		return errors.New("Chart.yaml: name and version are required")
	}
	if _, err := os.Stat(filepath.Join(dir, ".helmignore")); err == nil {
		return errors.New(".helmignore is not supported by this renderer")
	}
	if _, err := os.Stat(filepath.Join(dir, "charts")); err == nil {
		return errors.New("subcharts (charts/) are not supported by this renderer")
	}
	values := map[string]interface{}{}
	if err := readYAML(filepath.Join(dir, "values.yaml"), &values); err != nil {
		return err
	}
	for _, f := range valueFiles {
		override := map[string]interface{}{}
		if err := readYAML(f, &override); err != nil {
			return err
		}
		values = coalesce(values, override)
	}
	if *showValues {
		b, err := json.MarshalIndent(values, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}

	kv, err := semver.NewVersion(*kubeVer)
	if err != nil {
		return fmt.Errorf("invalid kube version %q: %w", *kubeVer, err)
	}
	caps := capabilities{
		KubeVersion: kubeVersion{Version: "v" + kv.String(), Major: fmt.Sprint(kv.Major()), Minor: fmt.Sprint(kv.Minor())},
		APIVersions: versionSet{"v1", "apps/v1", "batch/v1", "policy/v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1"},
		HelmVersion: map[string]string{"version": "v3-compatible (chart-render)"},
	}
	if meta.KubeVersion != "" {
		c, err := semver.NewConstraint(meta.KubeVersion)
		if err != nil {
			return fmt.Errorf("Chart.yaml kubeVersion: %w", err)
		}
		if !c.Check(semver.MustParse(caps.KubeVersion.Version)) {
			return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", meta.KubeVersion, caps.KubeVersion.Version)
		}
	}

	e := &engine{tpls: map[string]string{}}
	chartFiles := files{}
	err = walkChart(dir, dir, map[string]bool{}, func(rel string, b []byte) error {
		switch {
		case strings.HasPrefix(rel, "templates/"):
			e.tpls[meta.Name+"/"+rel] = string(b)
		case rel != "Chart.yaml" && rel != "values.yaml" && rel != "values.schema.json" && rel != "Chart.lock":
			chartFiles[rel] = b
		}
		return nil
	})
	if err != nil {
		return err
	}

	top := map[string]interface{}{
		"Values":       values,
		"Chart":        meta,
		"Files":        chartFiles,
		"Capabilities": caps,
		"Release": map[string]interface{}{
			"Name": *name, "Namespace": *namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
	}
	var out []manifest
	for _, tname := range sortTemplates(e.tpls) {
		if strings.HasPrefix(path.Base(tname), "_") {
			continue
		}
		top["Template"] = map[string]interface{}{"Name": tname, "BasePath": meta.Name + "/templates"}
		text, err := e.exec(nil, tname, top)
		if err != nil {
			return err
		}
		if strings.HasSuffix(tname, "NOTES.txt") || strings.TrimSpace(text) == "" {
			continue
		}
		for _, doc := range docSep.Split(strings.TrimSpace(text), -1) {
			if doc = strings.TrimSpace(doc); doc == "" {
				continue
			}
			var head struct {
				Kind string `json:"kind"`
			}
			// Helm refuses a document that is not YAML, naming the file.
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return fmt.Errorf("YAML parse error on %s: %w", tname, err)
			}
			out = append(out, manifest{tname, head.Kind, doc})
		}
	}
	rank := map[string]int{}
	for i, k := range installOrder {
		rank[k] = i + 1
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		ra, rb := rank[a.kind], rank[b.kind]
		switch {
		case ra != rb && ra != 0 && rb != 0:
			return ra < rb
		case ra != rb:
			return rb == 0 // unknown kinds last
		case ra == 0 && a.kind != b.kind:
			return a.kind < b.kind
		}
		return a.source < b.source
	})
	for _, m := range out {
		fmt.Printf("---\n# Source: %s\n%s\n", m.source, m.content)
	}
	return nil
}

// walkChart calls visit with every file under dir (its path relative to root), following symbolic
// links as Helm's loader does (internal/sympath): a linked file is read through the link, a linked
// directory is walked under the link's own path. seen holds the directories walked, by real path,
// so that a link loop ends.
func walkChart(root, dir string, seen map[string]bool, visit func(rel string, b []byte) error) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if seen[real] {
		return nil
	}
	seen[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if info.IsDir() {
			if err := walkChart(root, p, seen, visit); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if err := visit(filepath.ToSlash(rel), b); err != nil {
			return err
		}
	}
	return nil
}
