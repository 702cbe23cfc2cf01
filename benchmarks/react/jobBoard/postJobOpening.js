import { useState } from 'react';

export default function PostJobOpening() {
  const [title, setTitle] = useState('');
  const [salary, setSalary] = useState('');
  const [remote, setRemote] = useState(false);
  const [message, setMessage] = useState('');

  const submit = async (event) => {
    event.preventDefault();
    try {
      const response = await fetch('/api/jobs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title, salary: Number(salary), remote }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage('Job posted');
    } catch (err) {
      setMessage('Failed to post job');
    }
  };

  return (
    <form onSubmit={submit}>
      <input placeholder="Job title" value={title} onChange={(e) => setTitle(e.target.value)} />
      <input type="number" placeholder="Salary" value={salary} onChange={(e) => setSalary(e.target.value)} />
      <label>
        <input type="checkbox" checked={remote} onChange={(e) => setRemote(e.target.checked)} />
        Remote
      </label>
      <button type="submit">Post job</button>
      {message && <p>{message}</p>}
    </form>
  );
}
