import { useEffect, useState } from 'react';

export default function AssignTask() {
  const [users, setUsers] = useState([]);
  const [assignee, setAssignee] = useState('');
  const [message, setMessage] = useState('');

  useEffect(() => {
    fetch('/api/users')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setUsers)
      .catch(() => setMessage('Could not load team members'));
  }, []);

  const assign = async () => {
    try {
      const response = await fetch('/api/tasks/5/assign', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ userId: assignee }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const user = users.find((u) => u.id === assignee);
      setMessage(`Task assigned to ${user ? user.name : assignee}`);
    } catch (err) {
      setMessage('Assignment failed');
    }
  };

  return (
    <div>
      <select data-testid="assignee-select" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
        <option value="">Choose a team member</option>
        {users.map((user) => (
          <option key={user.id} value={user.id}>{user.name}</option>
        ))}
      </select>
      <button onClick={assign}>Assign</button>
      {message && <p>{message}</p>}
    </div>
  );
}
