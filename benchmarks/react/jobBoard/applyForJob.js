import { useState } from 'react';

export default function ApplyForJob() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState('');

  const apply = async (event) => {
    event.preventDefault();
    try {
      const response = await fetch('/api/jobs/17/applications', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, email }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage('Application submitted');
    } catch (err) {
      setMessage('Application failed, please try again');
    }
  };

  return (
    <form onSubmit={apply}>
      <input placeholder="Full name" value={name} onChange={(e) => setName(e.target.value)} />
      <input type="email" placeholder="Email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <button type="submit">Submit application</button>
      {message && <p>{message}</p>}
    </form>
  );
}
